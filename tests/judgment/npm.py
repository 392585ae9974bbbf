"""Real packages from the npm registry, unpacked as a reviewed unit in a git workspace.

The TypeScript/JavaScript twin of ``pypi.py``: judgment is measured on code nobody here
wrote, with its own eslint, tsc and test-runner configuration. The tarball comes from
the registry with npm's ordinary client (``npm pack NAME@VERSION``), once per machine into
the user's cache; so do the package's own dev dependencies, at the versions its lockfile
(or, without one, its ``package.json`` ranges on the day they were pinned) names, in one
``node_modules`` per package that every workspace links to, as a developer's checkout has
it. The review itself installs nothing. The registry unreachable is an error, never a
skip: a judgment test that did not run must not look like one that passed.

A workspace is the tarball's tree (build output, CI and benchmarks left out), one unit
claiming the package's sources and tests, the unit's test command in
``.aidlc-review.toml``, committed as the base.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock

from tests.judgment.pypi import USER_CACHE, commit, git, write_manifest

UNIT = "u1-package"
NPM_CACHE = USER_CACHE / "npm"

# ts-dedent's repository holds these next to its sources; its tarball does not. Copied
# verbatim from the repository at the release commit (tag v2.3.0, cca0d66), so the review
# judges with the project's own configuration, not one written here.
TS_DEDENT_CONFIG = {
    "tsconfig.json": """{
  "compilerOptions": {
    "target": "es5",
    "module": "es6",
    "moduleResolution": "node",
    // es5 target + node10 resolution are intentional for broad compatibility
    // (engines.node >= 6.10, legacy browsers, classic `types`/`main` resolution).
    // TypeScript 6.0 deprecated both; suppress until a deliberate compat change.
    "ignoreDeprecations": "6.0",
    "sourceMap": true,
    "declaration": true,
    "rootDir": "src",
    "outDir": "esm",
    "allowSyntheticDefaultImports": true,
    "removeComments": true,
    "noImplicitAny": true,
    "noImplicitReturns": true,
    "noFallthroughCasesInSwitch": true,
    "strictNullChecks": true,
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "experimentalDecorators": true
  },
  "files": [
    "node_modules/typescript/lib/lib.es2015.d.ts",
    "node_modules/typescript/lib/lib.dom.d.ts",
    "src/index.ts"
  ],
  "include": [
    "*.ts",
    "**/*.ts"
  ],
  "exclude": [
    "node_modules",
    "*/__tests__",
    "*/__mocks__",
    "dist"
  ]
}
""",
    "tsconfig.jest.json": """{
  "extends": "./tsconfig",
  "compilerOptions": {
    "module": "commonjs",
    "paths": {
      "ts-dedent": ["./src/index.ts"]
    },
    "baseUrl": "."
  }
}
""",
    "eslint.config.mjs": """import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Flat config (ESLint 9+). Mirrors the previous .eslintrc.json: lint the
// TypeScript source with the core "recommended" rules plus typescript-eslint's
// "recommended". Build output and coverage are not source, so they are ignored.
export default tseslint.config(
  { ignores: ['dist/**', 'esm/**', 'coverage/**'] },
  {
    files: ['src/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      ecmaVersion: 2020,
      sourceType: 'module',
    },
  },
);
""",
    ".prettierrc": """{
  "files": "*.ts",
  "trailingComma": "all",
  "tabWidth": 2,
  "semi": true,
  "singleQuote": true,
  "overrides": [{
    "files": ".prettierrc",
    "options": {
      "parser": "json"
    }
  }]
}
""",
}


# wonka's tarball holds its sources, its vitest specs and its prettier config (package.json's
# "prettier") and names its eslint config (package.json's "eslintConfig" extends
# ./scripts/eslint-preset.js), but holds neither that preset nor its tsconfig.json. Both are
# copied verbatim from its repository (0no-co/wonka) at the release commit (tag v6.3.6,
# 9c28bb0ff8ac51bfceb774d5adde01c16c35ebd6).
WONKA_CONFIG = {
    "tsconfig.json": """{
  "compilerOptions": {
    "forceConsistentCasingInFileNames": true,
    "importsNotUsedAsValues": "remove",
    "noEmit": true,
    "esModuleInterop": true,
    "noUnusedLocals": true,
    "rootDir": "./src",
    "baseUrl": ".",
    "outDir": "dist/cjs",
    "lib": ["dom", "esnext"],
    "jsx": "react",
    "declaration": false,
    "module": "es2015",
    "moduleResolution": "node",
    "target": "esnext",
    "strict": true,
    "noImplicitAny": false,
    "noUnusedParameters": true,
    "skipLibCheck": true,
    "isolatedModules": true
  },
  "include": ["src"]
}
""",
    "scripts/eslint-preset.js": """module.exports = {
  parserOptions: {
    ecmaVersion: 9,
    sourceType: 'module',
    ecmaFeatures: {
      modules: true,
    },
  },
  extends: ['prettier'],
  plugins: ['prettier', 'tsdoc'],
  ignorePatterns: ['node_modules/', 'dist/', 'coverage/', 'perf/'],
  rules: {
    'sort-keys': 'off',
    'no-console': ['error', { allow: ['warn', 'error'] }],
    'prefer-arrow/prefer-arrow-functions': 'off',
    'prefer-rest-params': 'off',

    'prettier/prettier': [
      'error',
      {
        singleQuote: true,
        arrowParens: 'avoid',
        trailingComma: 'es5',
      },
    ],
  },

  overrides: [
    {
      files: ['*.ts'],
      parser: '@typescript-eslint/parser',
      extends: ['plugin:@typescript-eslint/recommended', 'prettier'],
      rules: {
        '@typescript-eslint/explicit-module-boundary-types': 'off',
        '@typescript-eslint/no-use-before-define': 'off',
        '@typescript-eslint/ban-types': 'off',
        '@typescript-eslint/ban-ts-comment': 'off',
        '@typescript-eslint/member-ordering': 'off',
        '@typescript-eslint/explicit-member-accessibility': 'off',
        '@typescript-eslint/no-object-literal-type-assertion': 'off',
        '@typescript-eslint/explicit-function-return-type': 'off',
        '@typescript-eslint/interface-name-prefix': 'off',
        '@typescript-eslint/no-non-null-assertion': 'off',
        '@typescript-eslint/no-misused-new': 'off',
        '@typescript-eslint/no-explicit-any': 'off',
        '@typescript-eslint/array-type': 'off',
        '@typescript-eslint/no-empty-function': 'off',
        '@typescript-eslint/no-unused-vars': 'off',
        'prefer-rest-params': 'off',
        'tsdoc/syntax': 'error',
      },
    },
  ],
};
""",
}


@dataclass(frozen=True)
class NpmPackage:
    name: str
    version: str
    dev: tuple[str, ...]  # its dev dependencies, pinned (see the module's docstring)
    claims: tuple[str, ...]  # the unit's files: sources and tests
    test_command: str
    drop: tuple[str, ...] = ()  # left out of the workspace: build output, CI, benchmarks
    config: dict[str, str] = field(default_factory=dict)  # from its repository, verbatim

    @property
    def tarball(self) -> str:
        return f"{self.name.lstrip('@').replace('/', '-')}-{self.version}.tgz"


PACKAGES = {
    "ts-dedent": NpmPackage(
        "ts-dedent",
        "2.3.0",
        # its package-lock.json at v2.3.0 (prettier: .prettierrc is there, prettier is not)
        (
            "@eslint/js@10.0.1",
            "eslint@10.4.1",
            "jest@30.4.2",
            "ts-jest@29.4.11",
            "typescript@6.0.3",
            "typescript-eslint@8.60.1",
        ),
        ("src/index.ts", "src/__tests__/index.spec.ts"),
        "npx jest",
        ("dist", "esm"),
        TS_DEDENT_CONFIG,
    ),
    "@fastify/error": NpmPackage(
        "@fastify/error",
        "4.3.0",
        # no lockfile (fastify commits none): the newest in each of its ranges, 2026-12-05;
        # benchmark and tstyche (the type tests of types/) are not what the unit claims
        ("eslint@9.39.5", "neostandard@0.13.0", "c8@12.0.0"),
        ("index.js", "test/index.test.js", "test/instanceof.test.js", "test/rfc9457.test.js"),
        "node --test test/",
        (".github", "benchmarks"),
    ),
    "wonka": NpmPackage(
        "wonka",
        "6.3.6",
        # its pnpm-lock.yaml at v6.3.6, the dev dependencies its lint, format, type check
        # and tests use (rollup, changesets, flowgen, lint-staged... build and release it);
        # no coverage provider among them, so vitest measures no coverage
        (
            "@types/zen-observable@0.8.7",
            "@typescript-eslint/eslint-plugin@5.62.0",
            "@typescript-eslint/parser@5.62.0",
            "callbag-from-iter@1.3.0",
            "callbag-iterate@1.0.0",
            "callbag-take@1.5.0",
            "eslint@8.57.1",
            "eslint-config-prettier@8.10.0",
            "eslint-plugin-prettier@4.2.1",
            "eslint-plugin-tsdoc@0.2.17",
            "prettier@2.8.8",
            "tslib@2.8.1",
            "typescript@4.9.5",
            "vitest@1.6.1",
            "zen-observable@0.10.0",
        ),
        (
            "src/combine.ts",
            "src/helpers.ts",
            "src/operators.ts",
            "src/sinks.ts",
            "src/sources.ts",
            "src/__tests__/combine.test.ts",
            "src/__tests__/operators.test.ts",
            "src/__tests__/sinks.test.ts",
            "src/__tests__/sources.test.ts",
        ),
        "npx vitest run",
        ("dist", "docs"),
        WONKA_CONFIG,
    ),
}


def tarball(package: NpmPackage) -> Path:
    """The package's tarball in the user's cache, packed from the registry on first use."""
    NPM_CACHE.mkdir(parents=True, exist_ok=True)
    target = NPM_CACHE / package.tarball
    with FileLock(str(NPM_CACHE / ".lock")):
        if not target.is_file():
            spec = f"{package.name}@{package.version}"
            argv = [_npm(), "pack", "--silent", "--pack-destination", str(NPM_CACHE), spec]
            _checked(argv, NPM_CACHE, f"packing {spec} from the npm registry")
    return target


def node_modules(package: NpmPackage) -> Path:
    """The package's dev dependencies, installed once per machine (``--ignore-scripts``)."""
    where = NPM_CACHE / f"{package.tarball[: -len('.tgz')]}-dev"
    done = where / ".complete"
    NPM_CACHE.mkdir(parents=True, exist_ok=True)
    with FileLock(str(NPM_CACHE / ".modules.lock")):
        if not done.is_file() or done.read_text().split() != list(package.dev):
            shutil.rmtree(where, ignore_errors=True)
            where.mkdir()
            (where / "package.json").write_text('{"name": "dev-dependencies", "private": true}\n')
            argv = [_npm(), "install", "--no-audit", "--no-fund", "--ignore-scripts", *package.dev]
            _checked(argv, where, f"installing {package.name}'s dev dependencies from npm")
            done.write_text("\n".join(package.dev) + "\n")
    return where / "node_modules"


def unpack(package: NpmPackage, root: Path) -> Path:
    """The package's tree at ``root`` with its dev dependencies linked: one unit claiming
    its sources and tests, committed as the base."""
    installed = node_modules(package)
    staging = root.parent / f".{root.name}-tarball"
    with tarfile.open(tarball(package)) as archive:
        archive.extractall(staging, filter="data")
    shutil.move(staging / "package", root)
    staging.rmdir()
    for rel in package.drop:
        target = root / rel
        shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
    for rel, text in package.config.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".gitignore").write_text("node_modules\ncoverage\n")
    (root / ".aidlc-review.toml").write_text(f'test-command = "{package.test_command}"\n')
    (root / "node_modules").symlink_to(installed)
    write_manifest(root, list(package.claims))
    summary = root / "aidlc-docs" / "construction" / UNIT / "code-generation" / "code-summary.md"
    summary.write_text("# Code summary\n")
    git(root, "init", "-q", "-b", "main")
    commit(root, "pristine tarball")
    return root


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is needed to fetch the judgment's npm packages")
    return npm


def _checked(argv: list[str], cwd: Path, what: str) -> None:
    run = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900)
    if run.returncode != 0:
        tail = (run.stderr or run.stdout).strip().splitlines()[-5:]
        raise RuntimeError(f"{what} failed (exit {run.returncode}): " + " | ".join(tail))
