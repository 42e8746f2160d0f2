// Preloaded (NODE_OPTIONS=--import) into the bundled action by
// __tests__/integration/start-up.test.ts: at the first socket the process opens (its first
// request), writes the Node modules loaded since the preload to FIRST_REQUEST_MODULES, one a line.
// Node's modules are looked up (process.getBuiltinModule), not imported: an import of node:fs
// would itself load fs/promises.
const { writeFileSync } = process.getBuiltinModule('node:fs')
const net = process.getBuiltinModule('node:net')

const before = new Set(process.moduleLoadList)
const connect = net.Socket.prototype.connect
let written = false
net.Socket.prototype.connect = function (...args) {
  if (!written && process.env.FIRST_REQUEST_MODULES) {
    written = true
    const loaded = process.moduleLoadList
      .filter(entry => !before.has(entry) && entry.startsWith('NativeModule '))
      .map(entry => entry.slice('NativeModule '.length))
    writeFileSync(process.env.FIRST_REQUEST_MODULES, loaded.join('\n') + '\n')
  }
  return connect.apply(this, args)
}
