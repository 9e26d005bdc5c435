/**
 * After each story's play function: a screenshot of what the user sees. With
 * `STORYBOOK_SCREENSHOTS=1` it is written to `storybook/__screenshots__/<Component>/<story>.png`
 * (committed, so every flow can be seen without running anything); otherwise it is taken and
 * dropped, because encrypted CIDs, nonces and dates differ on every run and would rewrite them all.
 */
import { configure } from "storybook/test"
import { afterEach, inject } from "vitest"
import { page } from "vitest/browser"

// A flow waits on key nodes and a chain: on a loaded 2-core CI machine the default 1 s for
// `findBy…` is too short, while a real failure still shows within the limit.
configure({ asyncUtilTimeout: 15_000 })

declare module "vitest" {
  export interface ProvidedContext {
    readonly saveScreenshots: boolean
  }
}

afterEach(async ({ task }) => {
  if (task.result?.state === "fail") return
  // `src/components/UploadFiles.stories.tsx`, relative to this project's root (storybook/).
  const segments = task.file.name.split("/")
  const component = segments.at(-1)!.replace(/\.stories\.tsx$/, "")
  const story = task.name.toLowerCase().replaceAll(/[^a-z0-9]+/g, "-")
  // The path is relative to the story file.
  const up = "../".repeat(segments.length - 1)
  await page.screenshot({
    path: `${up}__screenshots__/${component}/${story}.png`,
    element: document.querySelector(".lh-story") ?? document.body,
    save: inject("saveScreenshots")
  })
})
