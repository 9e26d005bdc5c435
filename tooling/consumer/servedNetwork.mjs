// The served simulated network for the consumer test's entry-point program: started from the
// installed package on free ports, its addresses printed as one line of JSON, stopped when the
// test closes this process's standard input (as it does on exit, failures included).
import { serveMockNetwork } from "lighthouse-effect/mocks/server"

const served = await serveMockNetwork()
process.stdout.write(`${JSON.stringify({ urls: served.urls })}\n`)
process.stdin.resume()
process.stdin.on("end", () => {
  served.close().then(() => process.exit(0))
})
