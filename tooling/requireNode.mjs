// The first thing every entry point (scripts, test and tool configs) loads: on a Node older than
// the project needs, one clear line and exit 1, before a native module fails with a stack trace.
// npm scripts run on the Node 24 that the `node` devDependency puts first on their PATH.
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `lighthouse-effect needs Node ≥ 22.19 (this is Node ${process.versions.node}); ` +
      "run it through npm (npm start, npm test, npm run …), which uses the Node 24 in node_modules\n"
  )
  process.exit(1)
}
