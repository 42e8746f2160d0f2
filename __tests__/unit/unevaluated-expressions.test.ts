/**
 * An input whose whole value is a `${{ ... }}` expression nothing evaluated reads as unset, with
 * a debug line naming it; text around an expression is the user's own and is kept.
 */
import fc from 'fast-check'
import { INPUT_NAMES, readRawInputs } from '../../src/step/parse-inputs.js'

const expression = fc
  .tuple(
    fc.constantFrom('', ' ', '\n'),
    fc.oneof(
      fc.constantFrom('github.token', 'github.api_url', 'vars.DIGEST', "secrets['X']"),
      fc.string({ maxLength: 30 })
    ),
    fc.constantFrom('', ' ', '\n')
  )
  .map(([before, body, after]) => `${before}\${{ ${body} }}${after}`)

test('a whole expression reads as unset, with a debug line naming the input', () => {
  fc.assert(
    fc.property(fc.constantFrom(...INPUT_NAMES), expression, (name, value) => {
      const debug: string[] = []
      const raw = readRawInputs(
        n => (n === name ? value : ''),
        message => debug.push(message)
      )
      expect(raw[name]).toBe('')
      expect(debug).toEqual([
        `Input ${name} is \`${value.trim()}\`, an expression nothing evaluated: read as unset`
      ])
    })
  )
})

test('text around an expression is kept as given, without a debug line', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...INPUT_NAMES),
      expression,
      fc.stringMatching(/^[a-z0-9:-]{1,8}$/),
      fc.boolean(),
      (name, value, text, before) => {
        const given = before ? `${text}${value}` : `${value}${text}`
        const debug: string[] = []
        const raw = readRawInputs(
          n => (n === name ? given : ''),
          message => debug.push(message)
        )
        expect(raw[name]).toBe(given)
        expect(debug).toEqual([])
      }
    )
  )
})
