import {
  closingReferences,
  list,
  pullNumberFromSubject,
  pullReferenceFromSubject
} from '../../src/labels/references.js'

describe('pullNumberFromSubject', () => {
  test('merge-commit subjects', () => {
    expect(pullNumberFromSubject('Merge pull request #12 from acme/feature-x')).toBe(12)
    expect(pullNumberFromSubject('Merge pull request #12 from acme/x\n\nBody (#99)')).toBe(12)
  })

  test('squash-commit subjects end with (#N)', () => {
    expect(pullNumberFromSubject('Add retries (#14)')).toBe(14)
    expect(pullNumberFromSubject('Revert "Add retries (#14)" (#15)')).toBe(15)
    expect(pullNumberFromSubject('Add retries (#14)  \n\n* commit one (#3)')).toBe(14)
  })

  test('only the subject counts, and only those two forms', () => {
    expect(pullNumberFromSubject('Fix crash\n\nSquashed from (#16)')).toBeUndefined()
    expect(pullNumberFromSubject('Fix #16 crash')).toBeUndefined()
    expect(pullNumberFromSubject('Add retries (#14) and more')).toBeUndefined()
    expect(pullNumberFromSubject('Merge branch main into feature (#x)')).toBeUndefined()
    expect(pullNumberFromSubject("Merge branch 'main' of github.com:acme/web")).toBeUndefined()
    expect(pullNumberFromSubject('Add retries (#0)')).toBeUndefined()
    expect(pullNumberFromSubject('')).toBeUndefined()
  })

  test("the kind tells GitHub's merge subject from a subject that ends in (#N)", () => {
    expect(pullReferenceFromSubject('Merge pull request #12 from acme/x (#3)')).toEqual({
      number: 12,
      kind: 'merge'
    })
    expect(pullReferenceFromSubject('Cache the index (#13)')).toEqual({
      number: 13,
      kind: 'squash'
    })
    expect(pullReferenceFromSubject('Revert "Merge pull request #12 from acme/x"')).toBeUndefined()
    // bors-ng merges one pull request as `Merge #953`; a batch of several is left to the lookup
    expect(pullReferenceFromSubject('Merge #953')).toEqual({ number: 953, kind: 'merge' })
    expect(pullReferenceFromSubject('Merge #944 #945')).toBeUndefined()
  })
})

describe('closingReferences', () => {
  const refs = (body: string | null) => closingReferences(body, 'acme', 'web')

  test('every keyword form, any case, with #N', () => {
    const body = [
      'close #1',
      'closes #2',
      'Closed #3',
      'fix #4',
      'FIXES #5',
      'fixed #6',
      'resolve #7',
      'Resolves #8',
      'resolved #9',
      'Fixes: #10'
    ].join('\n')
    expect(refs(body)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  })

  test('owner/repo#N counts for the same repository only (any case)', () => {
    expect(refs('Fixes acme/web#21, fixes ACME/Web#22 and fixes other/web#23')).toEqual([21, 22])
    expect(refs('closes acme/webapp#24')).toEqual([])
  })

  test('mentions without a closing keyword, or inside words, do not count', () => {
    expect(refs('See #30. Related to #31. prefix #32, fixing #33, unfixed #34')).toEqual([])
    expect(refs('fixes #35abc, fixes#36')).toEqual([])
    expect(refs(null)).toEqual([])
  })

  test('each number once, ascending', () => {
    expect(refs('Fixes #9\nCloses #7\nresolves #9')).toEqual([7, 9])
  })
})

test('list', () => {
  expect(list([])).toBe('')
  expect(list([12])).toBe('#12')
  expect(list([12, 14])).toBe('#12 and #14')
  expect(list([12, 14, 15])).toBe('#12, #14 and #15')
})
