/**
 * Stack config written straight into `Pulumi.<stack>.yaml`, as `pulumi config set-all` writes it:
 * plain values as strings, secrets as `{ secure: <ciphertext> }` encrypted with the stack's key
 * (harness/passphrase-crypter.mts). `config set-all` is a CLI start that derives the passphrase key
 * again (0.65 s of CPU in all); a test sets config before nearly every stack's first command. The
 * file is the one users edit too, and the engine reads it on the next command, so every test that
 * runs with a secret setting checks that the CLI decrypts what is written here.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Document, parseDocument } from "yaml";
import { encrypt, harnessEncryptionSalt, passphraseKey } from "./passphrase-crypter.mts";

/** Stack config as `ns:key` (or `key`, in the project's namespace) → value; `secret` values are encrypted. */
export type StackConfig = Record<string, { value: string; secret?: boolean }>;

/** Writing without a line width keeps long values (a JSON spec) on one line, as the CLI does. */
const WRITE_OPTIONS = { lineWidth: 0 } as const;

function stackFile(projectDir: string, stack: string): string {
  return path.join(projectDir, `Pulumi.${stack}.yaml`);
}

function readDocument(file: string): Document {
  return fs.existsSync(file) ? parseDocument(fs.readFileSync(file, "utf8")) : new Document({});
}

/**
 * Gives stack `stack` of the project in `projectDir` the harness's `encryptionsalt` before it is
 * created (`pulumi stack init` keeps the salt it finds), unless its file has one already.
 */
export async function seedEncryptionSalt(
  projectDir: string,
  stack: string,
  passphrase: string,
): Promise<void> {
  const file = stackFile(projectDir, stack);
  const document = readDocument(file);
  if (document.get("encryptionsalt") !== undefined) return;
  document.set("encryptionsalt", await harnessEncryptionSalt(passphrase));
  fs.writeFileSync(file, document.toString(WRITE_OPTIONS));
}

/**
 * Sets each of `config` on stack `stack` of the project in `projectDir`, keeping every other entry
 * of its file. A key without a namespace gets the project's name, as the CLI gives it.
 */
export async function writeStackConfig(
  projectDir: string,
  stack: string,
  config: StackConfig,
  passphrase: string,
): Promise<void> {
  const project = parseDocument(fs.readFileSync(path.join(projectDir, "Pulumi.yaml"), "utf8")).get("name");
  const file = stackFile(projectDir, stack);
  const document = readDocument(file);
  let key: Buffer | undefined;
  for (const [name, { value, secret }] of Object.entries(config)) {
    const qualified = name.includes(":") ? name : `${String(project)}:${name}`;
    if (secret === true) {
      const salt = document.get("encryptionsalt");
      if (typeof salt !== "string")
        throw new Error(`${file} has no encryptionsalt to encrypt ${qualified} with`);
      key ??= await passphraseKey(passphrase, salt);
      document.setIn(["config", qualified], { secure: encrypt(key, value) });
    } else document.setIn(["config", qualified], value);
  }
  fs.writeFileSync(file, document.toString(WRITE_OPTIONS));
}
