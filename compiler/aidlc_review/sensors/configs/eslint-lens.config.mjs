// The security lens's own eslint configuration (sensors/aidlc-security.md): the rules the
// review always asks on the claimed JavaScript and TypeScript files, whatever the project's
// eslint configuration enables. eslint runs with `--config` naming this file, so no
// configuration file of the project is read; only its installed TypeScript parser and
// typescript-eslint's plugin are used, resolved from the workspace (the review's working
// directory), never installed.
import { createRequire } from "node:module";
import { join, relative, sep } from "node:path";

const cwd = process.cwd();
const fromWorkspace = createRequire(join(cwd, "package.json"));

function installed(name) {
  try {
    return fromWorkspace(name);
  } catch {
    return null;
  }
}

// the descriptor gives TypeScript files only where one of the two is installed
function typescriptParser() {
  return installed("@typescript-eslint/parser") ?? installed("typescript-eslint")?.parser ?? null;
}

const rules = {
  // code built from strings and run: injection
  "no-eval": "error",
  "no-implied-eval": "error",
  "no-new-func": "error",
  // `==` where `===` is meant (`== null` tests null and undefined on purpose)
  eqeqeq: ["error", "always", { null: "ignore" }],
  // an empty block, an empty `catch` among them: an error swallowed
  "no-empty": ["warn", { allowEmptyCatch: false }],
  // debugging output left in
  "no-console": "warn",
};

// typescript-eslint's rules, for `any` (no type information needed); none where not installed
function typescriptPlugin() {
  return installed("@typescript-eslint/eslint-plugin") ?? installed("typescript-eslint")?.plugin ?? null;
}

const parser = typescriptParser();
const plugin = parser ? typescriptPlugin() : null;
// the globals `no-implied-eval` looks for (`setTimeout("code")`); no other is assumed
const globals = { setTimeout: "readonly", setInterval: "readonly", execScript: "readonly",
  window: "readonly", globalThis: "readonly" };

// A promise nothing awaits needs type information: the project's installed typescript and
// its tsconfig.json at the workspace's root. Only the files that tsconfig's program holds get
// it (any other would fail to parse with it); a name a glob would read otherwise is left out.
function typedFiles() {
  const ts = plugin ? installed("typescript") : null;
  const project = ts?.findConfigFile(cwd, ts.sys.fileExists, "tsconfig.json");
  if (!project || relative(cwd, project) !== "tsconfig.json") {
    return { project: null, files: [] };
  }
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} };
  const parsed = ts.getParsedCommandLineOfConfigFile(project, {}, host);
  const files = (parsed?.fileNames ?? [])
    .map((name) => relative(cwd, name).split(sep).join("/"))
    .filter((name) => /\.(ts|tsx|mts|cts)$/.test(name))
    .filter((name) => !name.startsWith("../") && !/[*?[\]{}()!]/.test(name));
  return { project, files };
}

const typed = parser ? typedFiles() : { project: null, files: [] };

export default [
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs", "**/*.jsx"],
    languageOptions: { globals, parserOptions: { ecmaFeatures: { jsx: true } } },
    linterOptions: { reportUnusedDisableDirectives: "off" },
    rules,
  },
  ...(parser
    ? [
        {
          files: ["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts"],
          languageOptions: { parser, globals, parserOptions: { ecmaFeatures: { jsx: true } } },
          linterOptions: { reportUnusedDisableDirectives: "off" },
          ...(plugin ? { plugins: { "@typescript-eslint": plugin } } : {}),
          rules: {
            ...rules,
            // `any` where a type was meant: it switches the type checker off for what flows
            // through it
            ...(plugin ? { "@typescript-eslint/no-explicit-any": "warn" } : {}),
          },
        },
      ]
    : []),
  // `warn` (minor): a fire-and-forget `.then(...)` is often deliberate, and pristine code
  // holds them
  ...(typed.files.length
    ? [
        {
          files: typed.files,
          languageOptions: { parserOptions: { project: typed.project, tsconfigRootDir: cwd } },
          rules: { "@typescript-eslint/no-floating-promises": "warn" },
        },
      ]
    : []),
];
