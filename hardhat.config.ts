// Hardhat 3 project for the payment contract: offline compiler, Solidity + node:test tests, Ignition.
import "./tooling/requireNode.mjs"
import { createRequire } from "node:module"
import hardhatToolboxViemPlugin from "@nomicfoundation/hardhat-toolbox-viem"
import { defineConfig } from "hardhat/config"

// No compiler download is possible here: use the solcjs (WASM) build shipped by the `solc` npm package.
const soljson = createRequire(import.meta.url).resolve("solc/soljson.js")

const compiler = {
  version: "0.8.37",
  path: soljson,
  settings: {
    optimizer: { enabled: true, runs: 200 },
    // paris: no PUSH0/MCOPY/TSTORE, so the bytecode also runs on FEVM (Filecoin), the provider's chain.
    evmVersion: "paris"
  }
}

export default defineConfig({
  plugins: [hardhatToolboxViemPlugin],
  solidity: {
    // Same compiler and settings for tests and deployments, so the exported bytecode is the tested one.
    profiles: { default: compiler, production: { ...compiler, isolated: false } }
  },
  networks: {
    // `npx hardhat node` listens on 127.0.0.1; "localhost" could resolve to ::1 first.
    localhost: { type: "http", url: "http://127.0.0.1:8545" }
  },
  paths: {
    sources: "contracts",
    // Solidity tests are contracts/test/*.t.sol; the node:test + viem tests sit beside them.
    tests: { solidity: "contracts/test", nodejs: "contracts/test" }
  },
  test: {
    solidity: {
      fuzz: { runs: 256 },
      invariant: { runs: 64, depth: 64, failOnRevert: false }
    }
  }
})
