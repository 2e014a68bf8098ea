import * as fs from "node:fs";
import * as path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { LONGEST_FILES } from "./longest-files.mts";

/** Folders whose files start the Pulumi CLI or other processes, and so take seconds to minutes each. */
const SLOW_FOLDERS = ["test/e2e/", "test/reliability/", "test/integration/", "test/host/"] as const;

/**
 * Starts the longest test files first, across every leg of the engine matrix, so that the run does
 * not end with one worker busy on a long file while the other has nothing left.
 *
 * Vitest's own order runs the legs one after the other and, on a fresh clone (CI's case: no results
 * of an earlier run), the larger files first; a long file that is small in bytes then starts late
 * and runs alone at the end. Here: the {@link LONGEST_FILES} (each leg's copy together), then files
 * in {@link SLOW_FOLDERS}, then the rest; within each, by the duration vitest recorded in an earlier
 * run when it has one, else by size.
 */
export default class LongestFirstSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const cost = new Map(
      files.map((spec) => {
        const file = path.relative(root, spec.moduleId).split(path.sep).join("/");
        const known = LONGEST_FILES.indexOf(file as (typeof LONGEST_FILES)[number]);
        const slow = SLOW_FOLDERS.some((folder) => file.startsWith(folder));
        return [
          spec,
          {
            rank: known >= 0 ? known : LONGEST_FILES.length + (slow ? 0 : 1),
            duration: this.ctx.cache.getTestSpecificationResult(spec)?.duration,
            size: fs.statSync(spec.moduleId).size,
          },
        ] as const;
      }),
    );
    const costOf = (spec: TestSpecification) => {
      const found = cost.get(spec);
      if (found === undefined) throw new Error(`no cost for ${spec.moduleId}`);
      return found;
    };
    const sorted = [...files].sort((a, b) => {
      const [ca, cb] = [costOf(a), costOf(b)];
      if (ca.rank !== cb.rank) return ca.rank - cb.rank;
      if (ca.duration !== undefined && cb.duration !== undefined) return cb.duration - ca.duration;
      return cb.size - ca.size;
    });
    return Promise.resolve(sorted);
  }
}
