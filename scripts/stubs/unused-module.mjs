// Stands in, in the bundle, for a module that a dependency loads at start-up but that this
// action never uses (see scripts/bundle.mjs for which and why). Using it fails loudly.
const unused = () => {
  throw new Error('this part of a dependency is not in the record-deployment bundle')
}

export default unused
export { unused as connectH2 }
