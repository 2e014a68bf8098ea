// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "examples/**/node_modules/**",
      "examples/**/bin/**",
      "coverage/**",
      // Generated from schema.json by Pulumi's Node.js code generator (npm run gen:native).
      "sdk/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ["*.mjs", "*.mts"],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // The providers require their implementation lazily by package subpath (see docs/pulumi-dynamic-providers.md):
      // that require() is deliberate, not a leftover of CommonJS style.
      "@typescript-eslint/no-require-imports": "off",
      "@typescript-eslint/restrict-template-expressions": [
        "error",
        { allowNumber: true, allowBoolean: true },
      ],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      // Tests state what they expect to exist; a wrong expectation fails the test anyway.
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  {
    // Examples and test programs are type-checked against the built package by `npm run typecheck`
    // (after the build); here, before the build, the package they import does not resolve yet.
    files: ["**/*.mjs", "**/*.js", "**/*.cjs", "*.mts", "examples/**/*.ts", "test/programs/**/*.ts"],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: {
        require: "readonly",
        module: "writable",
        exports: "writable",
        process: "readonly",
        console: "readonly",
        setTimeout: "readonly",
        __dirname: "readonly",
      },
    },
  },
);
