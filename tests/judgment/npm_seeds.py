"""The seeded TypeScript/JavaScript corpus: AI-typical defects, one per copy of an npm
package (``npm.py``). Shaped like bench/judgment/seeds.py: a seed is a few text edits (an
anchor replaced once, or code appended) and the one place the defect is, the first line of
``at`` holding ``mark``. Most edit lines the package's tests already run, so the defect is
the only thing wrong; a seed that adds a function says so (no test runs it either).

``enabled`` says whether the package's own configuration has a check that should see the
defect. The review uses the project's tools and config and adds no rule: where the config
enables none (``==`` under typescript-eslint's "recommended", which has no eqeqeq), the
honest expectation is that nothing is found, and the benchmark reports it.

Secret-looking values are assembled at run time, so none sits in this file.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

APPEND = ""  # an Edit whose ``old`` is APPEND adds ``new`` at the end of the file


def _letters(count: int, step: int) -> str:
    pool = string.ascii_letters + string.digits
    return "".join(pool[(i * step + 17) % len(pool)] for i in range(count))


GITHUB_TOKEN = "gh" + "p_" + _letters(36, 7)
STRIPE_KEY = "sk" + "_live_" + _letters(24, 5)


@dataclass(frozen=True)
class Edit:
    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Seed:
    id: str
    package: str
    defect: str
    edits: tuple[Edit, ...]
    at: str
    mark: str
    enabled: str  # the check of the package's config that should see it, or "" for none
    blocks: bool = True  # what its severity says: a minor finding (formatting) does not

    def apply(self, read: dict[str, str]) -> dict[str, str]:
        """The edited texts of the files this seed touches, from their pristine ``read``."""
        texts = dict(read)
        for edit in self.edits:
            text = texts[edit.path]
            if edit.old == APPEND:
                texts[edit.path] = text.rstrip("\n") + "\n\n" + edit.new
            elif text.count(edit.old) != 1:
                raise ValueError(f"{self.id}: anchor not found once in {edit.path}: {edit.old!r}")
            else:
                texts[edit.path] = text.replace(edit.old, edit.new)
        return texts

    def line(self, texts: dict[str, str]) -> int:
        """The 1-based line of the defect in the seeded ``texts``."""
        for number, text in enumerate(texts[self.at].splitlines(), start=1):
            if self.mark in text:
                return number
        raise ValueError(f"{self.id}: mark {self.mark!r} not in the seeded {self.at}")

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.path for e in self.edits))


def _seed(package: str, sid: str, defect: str, edit: Edit, mark: str, enabled: str) -> Seed:
    return Seed(sid, package, defect, (edit,), edit.path, mark, enabled)


DED = "ts-dedent"
TS = "src/index.ts"
SPEC = "src/__tests__/index.spec.ts"
FE = "@fastify/error"
JS = "index.js"
FE_TEST = "test/index.test.js"
WK = "wonka"
SINKS = "src/sinks.ts"
WK_TEST = "src/__tests__/sinks.test.ts"

TS_DEDENT = (
    _seed(
        DED,
        "ded-github-token",
        "hard-coded GitHub token",
        Edit(TS, APPEND, f"export const GITHUB_TOKEN = '{GITHUB_TOKEN}';\n"),
        "GITHUB_TOKEN",
        "secret-scan (detect-secrets)",
    ),
    _seed(
        DED,
        "ded-unused-variable",
        "unused variable",
        Edit(
            TS,
            "  let string = strings[0];\n",
            "  const first = strings[0];\n  let string = strings[0];\n",
        ),
        "const first",
        "tsc noUnusedLocals, eslint no-unused-vars",
    ),
    _seed(
        DED,
        "ded-any-return",
        "`any` leaking from the public function",
        Edit(TS, "  ...values: unknown[]\n): string {", "  ...values: unknown[]\n): any {"),
        "): any {",
        "eslint @typescript-eslint/no-explicit-any",
    ),
    _seed(
        DED,
        "ded-floating-promise",
        "missing await (floating promise), new function",
        Edit(
            TS,
            APPEND,
            "export async function dedentLater(text: string): Promise<string> {\n"
            "  const later = Promise.resolve(text);\n"
            "  later.then((value) => dedent(value));\n"
            "  return dedent(text);\n"
            "}\n",
        ),
        "later.then(",
        "",  # no-floating-promises is in typescript-eslint's type-checked configs only
    ),
    _seed(
        DED,
        "ded-eqeq",
        "`==` where `===` is meant",
        Edit(TS, "typeof value === 'string'", "typeof value == 'string'"),
        "typeof value == 'string'",
        "",  # neither eslint's nor typescript-eslint's "recommended" has eqeqeq
    ),
    _seed(
        DED,
        "ded-empty-catch",
        "empty `catch`",
        Edit(
            TS,
            "  strings[0] = strings[0].replace(/^\\r?\\n/, '');\n",
            "  try {\n    strings[0] = strings[0].replace(/^\\r?\\n/, '');\n  } catch {}\n",
        ),
        "} catch {}",
        "eslint no-empty",
    ),
    _seed(
        DED,
        "ded-eval",
        "`eval`",
        Edit(
            TS,
            "    string += indentedValue + strings[i + 1];",
            "    string += indentedValue + strings[i + 1] + eval(\"''\");",
        ),
        "eval(",
        "",  # no-eval is in neither "recommended"
    ),
    _seed(
        DED,
        "ded-off-by-one",
        "off-by-one (the next string's index)",
        Edit(
            TS,
            "    string += indentedValue + strings[i + 1];",
            "    string += indentedValue + strings[i];",
        ),
        "string += indentedValue + strings[i];",
        "its jest tests",
    ),
    _seed(
        DED,
        "ded-null-check",
        "removed null check",
        Edit(
            TS,
            "const endentation = endentations ? endentations[1] : ''",
            "const endentation = endentations[1]",
        ),
        "const endentation = endentations[1]",
        "tsc strictNullChecks",
    ),
    _seed(
        DED,
        "ded-untested-branch",
        "untested new branch",
        Edit(
            TS,
            "    string += indentedValue + strings[i + 1];",
            "    if (typeof value === 'number' && value < 0) {\n"
            "      indentedValue = `(${-value})`;\n"
            "    }\n"
            "    string += indentedValue + strings[i + 1];",
        ),
        "indentedValue = `(${-value})`;",
        "coverage (jest --coverage)",
    ),
    _seed(
        DED,
        "ded-failing-test",
        "failing test",
        Edit(
            SPEC,
            "expect(dedent``).toEqual('');",
            "expect(dedent``).toEqual(' ');",
        ),
        "toEqual(' ')",
        "its jest tests",
    ),
    _seed(
        DED,
        "ded-console-log",
        "`console.log` left in",
        Edit(
            TS,
            "  // 5. Perform interpolation.\n",
            "  // 5. Perform interpolation.\n  console.log(strings);\n",
        ),
        "console.log(",
        "",  # no-console is in neither "recommended"
    ),
    _seed(
        DED,
        "ded-tsc-error",
        "type error",
        Edit(
            TS,
            "const endentation = endentations ? endentations[1] : ''",
            "const endentation: number = endentations ? endentations[1] : ''",
        ),
        "const endentation: number",
        "tsc",
    ),
    Seed(
        "ded-formatting",
        DED,
        "unformatted code",
        (Edit(TS, "  return string;\n}\n", "  return    string;\n}\n"),),
        TS,
        "return    string;",
        "",  # .prettierrc is there, prettier is not among its dev dependencies
        blocks=False,
    ),
)

FASTIFY_ERROR = (
    _seed(
        FE,
        "fe-stripe-key",
        "hard-coded Stripe key",
        Edit(JS, APPEND, f"module.exports.billingKey = '{STRIPE_KEY}'\n"),
        "billingKey",
        "secret-scan (detect-secrets)",
    ),
    _seed(
        FE,
        "fe-unused-import",
        "unused import",
        Edit(
            JS,
            "const { format } = require('node:util')",
            "const { format, inspect } = require('node:util')",
        ),
        "inspect",
        "eslint no-unused-vars (neostandard)",
    ),
    _seed(
        FE,
        "fe-eqeq",
        "`==` where `===` is meant",
        Edit(JS, "code === FastifyGenericErrorSymbol", "code == FastifyGenericErrorSymbol"),
        "code == FastifyGenericErrorSymbol",
        "eslint eqeqeq (neostandard)",
    ),
    _seed(
        FE,
        "fe-empty-catch",
        "empty `catch`",
        Edit(
            JS,
            "    this.message = format(message, ...args)\n",
            "    try {\n      this.message = format(message, ...args)\n    } catch {}\n",
        ),
        "} catch {}",
        "",  # neostandard's no-empty allows an empty catch (allowEmptyCatch)
    ),
    _seed(
        FE,
        "fe-eval",
        "`eval`",
        Edit(
            JS,
            "    this.message = format(message, ...args)",
            "    this.message = format(eval('message'), ...args)",
        ),
        "eval(",
        "eslint no-eval (neostandard)",
    ),
    _seed(
        FE,
        "fe-off-by-one",
        "off-by-one (the last argument's index)",
        Edit(JS, "const lastElement = args.length - 1", "const lastElement = args.length"),
        "const lastElement = args.length",
        "its node --test tests",
    ),
    _seed(
        FE,
        "fe-null-check",
        "removed null check",
        Edit(
            JS,
            "lastElement !== -1 && args[lastElement] && typeof",
            "lastElement !== -1 && typeof",
        ),
        "lastElement !== -1 && typeof",
        "its node --test tests (the last argument null)",
    ),
    _seed(
        FE,
        "fe-untested-branch",
        "untested new branch",
        Edit(
            JS,
            "  code = code.toUpperCase()\n",
            "  code = code.toUpperCase()\n"
            "  if (code.length > 64) {\n    code = code.slice(0, 64)\n  }\n",
        ),
        "code = code.slice(0, 64)",
        "coverage (node --experimental-test-coverage)",
    ),
    _seed(
        FE,
        "fe-failing-test",
        "failing test",
        Edit(
            FE_TEST,
            "t.assert.equal(err.message, 'hey alice')",
            "t.assert.equal(err.message, 'hey bob')",
        ),
        "'hey bob'",
        "its node --test tests",
    ),
    _seed(
        FE,
        "fe-console-log",
        "`console.log` left in",
        Edit(
            JS,
            "  code = code.toUpperCase()\n",
            "  code = code.toUpperCase()\n  console.log(code)\n",
        ),
        "console.log(",
        "",  # neostandard has no no-console
    ),
    Seed(
        "fe-formatting",
        FE,
        "unformatted code",
        (Edit(JS, "  code = code.toUpperCase()\n", "  code = code.toUpperCase();\n"),),
        JS,
        "code.toUpperCase();",
        "eslint @stylistic (neostandard formats through eslint)",
    ),
)

# wonka's own config (npm.py): tsc strict with noUnusedLocals and noUnusedParameters but
# noImplicitAny off; eslint 8 through package.json's "eslintConfig" (scripts/eslint-preset.js:
# no eslint:recommended, typescript-eslint 5's "recommended" with no-explicit-any and
# no-unused-vars off, no-console, prettier/prettier, tsdoc/syntax); prettier 2 through
# package.json's "prettier"; vitest 1 with no coverage provider installed.
WONKA = (
    _seed(
        WK,
        "wk-github-token",
        "hard-coded GitHub token",
        Edit(SINKS, APPEND, f"export const GITHUB_TOKEN = '{GITHUB_TOKEN}';\n"),
        "GITHUB_TOKEN",
        "secret-scan (detect-secrets)",
    ),
    _seed(
        WK,
        "wk-unused-variable",
        "unused variable",
        Edit(
            SINKS,
            "  const values: T[] = [];\n",
            "  const values: T[] = [];\n  const size = values.length;\n",
        ),
        "const size",
        "tsc noUnusedLocals",  # its eslint preset turns no-unused-vars off
    ),
    _seed(
        WK,
        "wk-any-return",
        "`any` leaking from the public function",
        Edit(
            SINKS,
            "export function toArray<T>(source: Source<T>): T[] {",
            "export function toArray<T>(source: Source<T>): any {",
        ),
        "Source<T>): any {",
        "",  # its eslint preset turns no-explicit-any off (and noImplicitAny is off)
    ),
    _seed(
        WK,
        "wk-floating-promise",
        "missing await (floating promise), new function",
        Edit(
            SINKS,
            APPEND,
            "export async function toPromiseLater<T>(source: Source<T>): Promise<T> {\n"
            "  const later = toPromise(source);\n"
            "  later.then(value => value);\n"
            "  return toPromise(source);\n"
            "}\n",
        ),
        "later.then(",
        "",  # no-floating-promises needs typescript-eslint's type-checked configs
    ),
    _seed(
        WK,
        "wk-eqeq",
        "`==` where `===` is meant",
        Edit(
            SINKS,
            "    if (signal === SignalKind.End) {\n      ended = true;\n",
            "    if (signal == SignalKind.End) {\n      ended = true;\n",
        ),
        "if (signal == SignalKind.End) {",
        "",  # no eqeqeq in its eslint preset
    ),
    _seed(
        WK,
        "wk-empty-catch",
        "empty `catch`",
        Edit(
            SINKS,
            "  if (!ended) talkback(TalkbackKind.Close);\n  return values;\n",
            "  try {\n    if (!ended) talkback(TalkbackKind.Close);\n  } catch {}\n"
            "  return values;\n",
        ),
        "} catch {}",
        "",  # its eslint preset extends no eslint:recommended, so no no-empty
    ),
    _seed(
        WK,
        "wk-eval",
        "`eval`",
        Edit(SINKS, "      values.push(signal[0]);", "      values.push(eval('signal[0]'));"),
        "eval(",
        "",  # no no-eval in its eslint preset
    ),
    _seed(
        WK,
        "wk-off-by-one",
        "off-by-one (take ends one value late)",
        Edit(
            "src/operators.ts",
            "        if (!ended && taken >= max) {",
            "        if (!ended && taken > max) {",
        ),
        "taken > max",
        "its vitest tests",
    ),
    _seed(
        WK,
        "wk-null-check",
        "removed null check",
        Edit(
            "src/sources.ts",
            "              if (iterator.return) await iterator.return();\n",
            "              await iterator.return();\n",
        ),
        "              await iterator.return();",
        "tsc strict (strictNullChecks)",
    ),
    _seed(
        WK,
        "wk-untested-branch",
        "untested new branch",
        Edit(
            SINKS,
            "      values.push(signal[0]);\n",
            "      if (values.length >= 100000) {\n        values.shift();\n      }\n"
            "      values.push(signal[0]);\n",
        ),
        "values.shift();",
        "",  # vitest has no coverage provider among its dev dependencies
    ),
    _seed(
        WK,
        "wk-failing-test",
        "failing test",
        Edit(
            WK_TEST,
            "    expect(array).toEqual([0, 0, 0]);",
            "    expect(array).toEqual([0, 0, 0, 0]);",
        ),
        "toEqual([0, 0, 0, 0])",
        "its vitest tests",
    ),
    _seed(
        WK,
        "wk-console-log",
        "`console.log` left in",
        Edit(
            SINKS,
            "  if (!ended) talkback(TalkbackKind.Close);\n  return values;\n",
            "  if (!ended) talkback(TalkbackKind.Close);\n  console.log(values);\n"
            "  return values;\n",
        ),
        "  console.log(values);",
        "eslint no-console (its eslintConfig)",
    ),
    _seed(
        WK,
        "wk-tsc-error",
        "type error",
        Edit(
            SINKS,
            "  if (!ended) talkback(TalkbackKind.Close);\n  return values;\n",
            "  if (!ended) talkback('close');\n  return values;\n",
        ),
        "talkback('close')",
        "tsc",
    ),
    Seed(
        "wk-formatting",
        WK,
        "unformatted code",
        (Edit("src/helpers.ts", "    tag: SignalKind.Start,\n", "    tag:   SignalKind.Start,\n"),),
        "src/helpers.ts",
        "tag:   SignalKind.Start,",
        "prettier (package.json's prettier), eslint prettier/prettier",
        blocks=False,
    ),
)

SEEDS = TS_DEDENT + FASTIFY_ERROR + WONKA
