/**
 * What the simulated network needs of the Node it runs on. Each need is found by feature
 * detection where it is used (a version number says less: backports, flags, other runtimes), and
 * a missing one is this error, thrown where the feature is first asked for: the entry points still
 * load, and the message names the Node that has it in one line. Node-only modules use it; nothing
 * here is reachable from `lighthouse-effect/mocks` or `/mocks/browser`.
 */
export class UnsupportedNode extends Error {
  /** The first Node release that has what is missing. */
  readonly needs: string

  constructor(what: string, needs: string, reason: string, advice?: string) {
    super(
      `${what} needs Node ≥ ${needs} ${reason} (this is Node ${process.versions.node})` +
        (advice === undefined ? "" : `; ${advice}`)
    )
    this.name = "UnsupportedNode"
    this.needs = needs
  }
}
