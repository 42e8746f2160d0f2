/**
 * A jest transform for @actions/workflow-parser (the test of every documented workflow): its
 * compiled modules import their JSON schema without an import attribute, which Node refuses and
 * jest only tolerates with a deprecation warning. The attribute is added; nothing else changes.
 */
const JSON_IMPORT = /^(import \w+ from "[^"]+\.json");?$/gm

export default {
  process(source) {
    return { code: source.replace(JSON_IMPORT, '$1 with { type: "json" };') }
  }
}
