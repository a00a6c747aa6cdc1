/** Whether a program is an sh-like shell (errexit with -e, `-c` command strings, EXIT traps). */
export const isShLike = (bin: string): boolean => /(^|\/)(sh|bash|zsh|dash|ksh|ash)$/.test(bin);
