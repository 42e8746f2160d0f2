/**
 * The one reader of container image references, for the `digest` input
 * (`ghcr.io/acme/web:1.4.2@sha256:...`) and for the images of `kubernetes-file`: a leaf that
 * records/ and cluster/ both import.
 */

/**
 * An image reference without digest and tag, and its tag: `ghcr.io/acme/web:1.4.2@sha256:...`
 * is `ghcr.io/acme/web` at `1.4.2`. A registry's port is not a tag: `registry:5000/app` has none.
 */
export function nameAndVersion(image: string): { name: string; version?: string } {
  const at = image.indexOf('@')
  const ref = at >= 0 ? image.slice(0, at) : image
  // A tag follows the last `:` after the last `/`; a `:` before a `/` is the registry's port.
  const colon = ref.lastIndexOf(':')
  if (colon > ref.lastIndexOf('/')) {
    const version = ref.slice(colon + 1)
    return { name: ref.slice(0, colon), ...(version ? { version } : {}) }
  }
  return { name: ref }
}
