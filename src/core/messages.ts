/** The message of anything thrown, for wrapping into another message. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
