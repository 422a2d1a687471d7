/** redis_version from the text of INFO (server section), or undefined if it is not there. */
export function versionFromInfo(info: string): string | undefined {
  return /redis_version:(\S+)/.exec(info)?.[1];
}
