/**
 * An account on `dev`'s network, made as a user makes one: a fresh config home, `wallet create`
 * and `api-key` run by the executable. What the spawned tests that upload start from.
 */
import { freshConfigHome } from "./commands.ts"
import { type Dev, type Executable, runExecutable } from "./executable.ts"

/** The wallet's password, given as `LIGHTHOUSE_WALLET_PASSWORD`. */
export const walletPassword = "a password for the test"

export interface DevAccount {
  /** The config home (`XDG_CONFIG_HOME`), holding the keystore and the saved API key. */
  readonly home: string
  /** `dev`'s hosts, the home and the password, then the `extra` variables: the commands' environment. */
  readonly env: Record<string, string>
  /** The wallet's address. */
  readonly address: string
}

/** Creates the wallet and saves its API key against `dev`; fails with the command's stderr. */
export const devAccount = async (
  executable: Executable,
  dev: Dev,
  extra: Readonly<Record<string, string>> = {}
): Promise<DevAccount> => {
  const home = await freshConfigHome()
  const env = { ...dev.hosts, XDG_CONFIG_HOME: home, LIGHTHOUSE_WALLET_PASSWORD: walletPassword, ...extra }
  const ran = async (args: ReadonlyArray<string>) => {
    const done = await runExecutable(executable, args, env)
    if (done.code !== 0) throw new Error(`${args.join(" ")} exited ${done.code}: ${done.stderr}`)
    return JSON.parse(done.stdout) as { readonly address: string }
  }
  const { address } = await ran(["wallet", "create", "--json"])
  await ran(["api-key", "--json"])
  return { home, env, address }
}
