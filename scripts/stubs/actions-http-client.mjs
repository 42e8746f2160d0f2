// Stands in for @actions/http-client in the bundle. @actions/core imports it only for its OIDC
// token helper, which this action never calls; the real package would bring undici's whole entry
// and `tunnel` into every cold start. Anything that does call it fails loudly.
const leftOut = () => {
  throw new Error('@actions/http-client is not part of the record-deployment bundle')
}

export class HttpClient {
  constructor() {
    leftOut()
  }
}

export class BearerCredentialHandler {
  constructor() {
    leftOut()
  }
}
