/**
 * What the command line keeps between runs, in the XDG config directory
 * (`$XDG_CONFIG_HOME/lighthouse-effect`, else `~/.config/lighthouse-effect`): the wallet's v3
 * keystore (`keystore.json`) and the saved API key (`config.json`). The directory is mode 0700
 * and every file 0600 whatever the umask: a file is written beside its target with mode 0600,
 * chmod-ed, then renamed over it, so no reader ever sees it wider or half-written.
 *
 * @since 0.1.0
 */
import { homedir } from "node:os"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"

/** The XDG config home: `$XDG_CONFIG_HOME`, else `~/.config`. */
export const configHome = Effect.gen(function* () {
  const path = yield* Path.Path
  const xdg = yield* Config.option(Config.String("XDG_CONFIG_HOME"))
  const home = yield* Config.option(Config.String("HOME"))
  return Option.match(xdg, {
    onSome: (dir) => dir,
    onNone: () =>
      path.join(
        Option.getOrElse(home, () => homedir()),
        ".config"
      )
  })
}).pipe(Effect.orDie)

/** The directory of this command line's files. */
export const configDir = Effect.gen(function* () {
  const path = yield* Path.Path
  return path.join(yield* configHome, "lighthouse-effect")
})

/** Paths of the keystore and of the config file. */
export const paths = Effect.gen(function* () {
  const path = yield* Path.Path
  const dir = yield* configDir
  return { dir, keystore: path.join(dir, "keystore.json"), config: path.join(dir, "config.json") }
})

/** The directory, created (or narrowed) to 0700. */
const ensureDir = (dir: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    yield* fs.makeDirectory(dir, { recursive: true, mode: 0o700 })
    yield* fs.chmod(dir, 0o700)
  })

/** Writes `text` to `target` with mode 0600, atomically. */
export const writeSecretFile = (target: string, text: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* ensureDir(path.dirname(target))
    const temporary = `${target}.${process.pid}.tmp`
    yield* fs.writeFileString(temporary, text, { flag: "wx", mode: 0o600 })
    yield* fs.chmod(temporary, 0o600)
    yield* fs.rename(temporary, target)
  })

/** The file's text, or none when it does not exist. */
export const readIfExists = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    if (!(yield* fs.exists(file))) return Option.none<string>()
    return Option.some(yield* fs.readFileString(file))
  })

/** What `config.json` holds. */
const StoredConfig = Schema.Struct({ apiKey: Schema.optionalKey(Schema.String) })
type StoredConfig = typeof StoredConfig.Type

/** The saved configuration (empty when there is none). */
export const readConfig = Effect.gen(function* () {
  const { config } = yield* paths
  const text = yield* readIfExists(config)
  if (Option.isNone(text)) return {} as StoredConfig
  return yield* Schema.decodeUnknownEffect(Schema.fromJsonString(StoredConfig))(text.value)
})

/** Saves `update` over the stored configuration. */
export const updateConfig = (update: StoredConfig) =>
  Effect.gen(function* () {
    const { config } = yield* paths
    const current = yield* readConfig
    yield* writeSecretFile(config, `${JSON.stringify({ ...current, ...update }, null, 2)}\n`)
    return config
  })
