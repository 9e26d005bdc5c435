/**
 * `--completions SHELL`: the CLI module's completion script for the whole command tree, made to
 * complete both names of the executable, `lighthouse-effect` and `lhe` (the CLI module registers
 * the root's name only). Nothing but the commands' definitions is read: no network, no keystore.
 *
 * @since 0.1.0
 */
import { Completions } from "effect/cli"
import * as Output from "./Output.ts"

const shells: Readonly<Record<string, Completions.Shell>> = {
  bash: "bash",
  sh: "bash",
  zsh: "zsh",
  fish: "fish",
  powershell: "powershell",
  pwsh: "powershell"
}

/** The shell `--completions SHELL` (or `--completions=SHELL`) asks for, before `--`; else undefined. */
export const requested = (args: ReadonlyArray<string>): Completions.Shell | undefined => {
  const end = args.indexOf("--")
  const flags = end === -1 ? args : args.slice(0, end)
  const at = flags.findIndex((arg) => arg === "--completions" || arg.startsWith("--completions="))
  if (at === -1) return undefined
  const flag = flags[at] ?? ""
  const name = flag.includes("=") ? flag.slice(flag.indexOf("=") + 1) : flags[at + 1]
  return name === undefined ? undefined : shells[name]
}

/** The lines that register the script's completion function for `lhe` as well. */
const alsoForLhe = (shell: Completions.Shell, script: string): string => {
  switch (shell) {
    case "bash":
      return `${script}\ncomplete -F _lighthouse_effect lhe`
    case "zsh":
      return script
        .replace(/^#compdef lighthouse-effect$/m, "#compdef lighthouse-effect lhe")
        .replace(
          /^(\s*)compdef _lighthouse_effect lighthouse-effect$/m,
          "$1compdef _lighthouse_effect lighthouse-effect lhe"
        )
    case "fish":
      return `${script}\ncomplete --command lhe --wraps lighthouse-effect`
    case "powershell":
      return script.replace("-CommandName 'lighthouse-effect'", "-CommandName 'lighthouse-effect', 'lhe'")
  }
}

/** Prints the completion script of `root` for `shell`, for both names. */
export const print = (root: Parameters<typeof Completions.fromCommand>[0], shell: Completions.Shell) =>
  Output.stdout(alsoForLhe(shell, Completions.generate("lighthouse-effect", shell, Completions.fromCommand(root))))
