/**
 * The passphrase secrets provider's cryptography, as the Pulumi CLI does it (sdk
 * `go/common/resource/config/crypt.go`), so that the harness reads and writes a stack's secrets
 * without starting the CLI: every CLI start that touches secrets derives the key again with
 * PBKDF2-SHA256 at 1,000,000 iterations (0.35 s of CPU), where this process derives it once per salt.
 *
 * A stack's `encryptionsalt` (in `Pulumi.<stack>.yaml`, and as the checkpoint's secrets provider
 * state) is `v1:<base64 salt>:<the word "pulumi" encrypted>`; each secret is
 * `v1:<base64 nonce>:<base64 AES-256-GCM ciphertext and tag>`.
 */
import { createCipheriv, createDecipheriv, pbkdf2, randomBytes } from "node:crypto";

/** The key derivation's iterations (crypt.go). */
const PBKDF2_ITERATIONS = 1_000_000;
/** AES-256-GCM appends its 16-byte tag to the ciphertext. */
const GCM_TAG_BYTES = 16;
/** The CLI's nonce size for AES-256-GCM. */
const NONCE_BYTES = 12;
/** What an `encryptionsalt` carries encrypted, to check the passphrase. */
const CHECK_TEXT = "pulumi";

/** Derived keys by passphrase and salt: one derivation per salt for the whole process. */
const derivedKeys = new Map<string, Promise<Buffer>>();
/** The salt this process gives the stacks it creates, by passphrase (see {@link harnessEncryptionSalt}). */
const harnessSalts = new Map<string, Promise<string>>();

/**
 * The key a passphrase stack encrypts with: PBKDF2-SHA256 of `passphrase` over the salt of
 * `encryptionSalt` (`v1:<salt>:<check>`).
 */
export function passphraseKey(passphrase: string, encryptionSalt: string): Promise<Buffer> {
  const [version, salt] = encryptionSalt.split(":");
  if (version !== "v1" || salt === undefined)
    throw new Error(`unknown encryption salt format: ${version ?? ""}`);
  const id = `${salt}\0${passphrase}`;
  let key = derivedKeys.get(id);
  if (key === undefined) {
    key = derive(passphrase, Buffer.from(salt, "base64"));
    derivedKeys.set(id, key);
  }
  return key;
}

function derive(passphrase: string, salt: Buffer): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    pbkdf2(passphrase, salt, PBKDF2_ITERATIONS, 32, "sha256", (error, derived) => {
      if (error === null) resolve(derived);
      else reject(error);
    });
  });
}

/**
 * An `encryptionsalt` for `passphrase`, the same for every stack this process creates: written into
 * `Pulumi.<stack>.yaml` before `pulumi stack init`, which keeps a salt it finds there, so that the
 * harness derives one key for all its stacks instead of one per stack.
 */
export function harnessEncryptionSalt(passphrase: string): Promise<string> {
  let salt = harnessSalts.get(passphrase);
  if (salt === undefined) {
    const bytes = randomBytes(8);
    salt = derive(passphrase, bytes).then((key) => {
      const encryptionSalt = `v1:${bytes.toString("base64")}:${encrypt(key, CHECK_TEXT)}`;
      derivedKeys.set(`${bytes.toString("base64")}\0${passphrase}`, Promise.resolve(key));
      return encryptionSalt;
    });
    harnessSalts.set(passphrase, salt);
  }
  return salt;
}

/** `plaintext` encrypted as the CLI encrypts a secret: `v1:<nonce>:<ciphertext and tag>`. */
export function encrypt(key: Buffer, plaintext: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
}

/** The plain text of one `v1:<nonce>:<ciphertext and tag>` value the crypter wrote. */
export function decrypt(key: Buffer, value: string): string {
  const [version, nonce, sealed] = value.split(":");
  if (version !== "v1" || nonce === undefined || sealed === undefined)
    throw new Error(`unknown ciphertext format: ${version ?? ""}`);
  const bytes = Buffer.from(sealed, "base64");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64"));
  decipher.setAuthTag(bytes.subarray(bytes.length - GCM_TAG_BYTES));
  return Buffer.concat([
    decipher.update(bytes.subarray(0, bytes.length - GCM_TAG_BYTES)),
    decipher.final(),
  ]).toString("utf8");
}
