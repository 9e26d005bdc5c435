/**
 * After each story's play function: a screenshot of what the user sees, committed under
 * `storybook/__screenshots__/<Component>/<story>.png` so every flow can be seen without running
 * anything.
 */
import { afterEach } from "vitest"
import { page } from "vitest/browser"

afterEach(async ({ task }) => {
  if (task.result?.state === "fail") return
  // `src/components/UploadFiles.stories.tsx`, relative to this project's root (storybook/).
  const segments = task.file.name.split("/")
  const component = segments.at(-1)!.replace(/\.stories\.tsx$/, "")
  const story = task.name.toLowerCase().replaceAll(/[^a-z0-9]+/g, "-")
  // The path is relative to the story file.
  const up = "../".repeat(segments.length - 1)
  const root = document.querySelector(".lh-story") ?? document.body
  await page.screenshot({ path: `${up}__screenshots__/${component}/${story}.png`, element: root })
})
