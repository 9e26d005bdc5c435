/**
 * `docs/openapi.json` is generated from the contract and committed: this fails when the file no
 * longer matches what the contract generates (run `npm run openapi`), and checks what the
 * document promises its readers: every route of the contract, each on its host's server.
 */
import { readFileSync } from "node:fs"
import * as Contract from "lighthouse-effect/contract"
import { describe, expect, it } from "vitest"
import { openApiPath, openApiText } from "../openapi.ts"

describe("docs/openapi.json", () => {
  it("is what the contract generates (else run `npm run openapi`)", () => {
    expect(readFileSync(openApiPath, "utf8")).toBe(openApiText())
  })

  it("names every operation's server, the production host of its group", () => {
    const spec = Contract.openApi()
    const operations = Object.values(spec.paths).flatMap(
      (item) => Object.values(item) as Array<{ readonly tags: ReadonlyArray<string>; readonly servers?: unknown }>
    )
    expect(operations.length).toBe(48)
    for (const operation of operations) {
      const host = Contract.GroupHosts.get(operation.tags[0]!)
      // The served network's own routes (`dev`) are on no host of the provider.
      if (operation.tags[0] === "dev") expect(operation.servers).toBeUndefined()
      else expect(operation.servers).toEqual([{ url: Contract.ProductionHosts[host!] }])
    }
  })

  it("serves the document for other hosts when asked (a served network's)", () => {
    const hosts = {
      api: "http://127.0.0.1:1",
      node: "http://127.0.0.1:2",
      gateway: "http://127.0.0.1:3",
      encryption: "http://127.0.0.1:4"
    }
    const spec = Contract.openApi(hosts)
    const fileInfo = spec.paths["/api/lighthouse/file_info"]!.get as { servers?: unknown }
    expect(fileInfo.servers).toEqual([{ url: "http://127.0.0.1:1" }])
    const cat = spec.paths["/api/v0/cat/{cid}"]!.post as { servers?: unknown }
    expect(cat.servers).toEqual([{ url: "http://127.0.0.1:3" }])
  })

  it("declares each error answer with its status and body", () => {
    const responses = Contract.openApi().paths["/api/user/user_data_usage"]!.get!.responses
    expect(Object.keys(responses).sort()).toEqual(["200", "401"])
    expect(JSON.stringify(responses[401])).toContain('"enum":["Authentication failed"]')
  })
})
