/** The human-readable table `npm run bench` prints. */

type Row = [label: string, value: string, note?: string | undefined];

function table(title: string, rows: readonly Row[]): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  const valueWidth = Math.max(...rows.map(([, value]) => value.length));
  const lines = rows.map(([label, value, note]) =>
    `  ${label.padEnd(width)}  ${value.padStart(valueWidth)}${note === undefined ? "" : `  ${note}`}`.trimEnd(),
  );
  return `${title}\n${lines.join("\n")}\n`;
}

/** A goal and whether the figures meet it. */
export interface Goal {
  goal: string;
  met: boolean;
  detail: string;
}

/** Formats the results (the same object written to results.json) as text tables. */
export function formatReport(results: Record<string, unknown>, goals: readonly Goal[]): string {
  const parts: string[] = [];
  const bytes = results["providerBytes"] as Record<string, number | null> | undefined;
  if (bytes !== undefined) {
    parts.push(
      table(
        "Serialized __provider per resource (bytes; stored twice: input and output)",
        Object.entries(bytes).map(([type, value]) => [type, value === null ? "failed" : String(value)]),
      ),
    );
  }
  const perOp = results["requestsPerOp"] as Record<string, number> | undefined;
  const minimum = results["minimumPerOp"] as Record<string, number> | undefined;
  if (perOp !== undefined && minimum !== undefined) {
    parts.push(
      table(
        "HTTP requests per operation (measured / minimum)",
        Object.entries(perOp).map(([op, n]) => [
          op,
          `${n} / ${minimum[op] ?? "?"}`,
          n > (minimum[op] ?? n) ? "ABOVE MINIMUM" : undefined,
        ]),
      ),
    );
  }
  const cli = results["cliRequests"] as Record<string, number> | undefined;
  if (cli !== undefined) {
    parts.push(
      table(
        "Requests per CLI command (5 resources)",
        Object.entries(cli).map(([k, v]) => [k, String(v)]),
      ),
    );
  }
  const client = results["client"] as Record<string, number> | undefined;
  if (client !== undefined) {
    parts.push(
      table(`Client GET throughput (concurrency ${client["concurrency"]})`, [
        ["ours (req/s)", String(client["rps"])],
        ["raw undici (req/s)", String(client["rawRps"])],
        ["ratio raw/ours", String(client["ratio"])],
        ["ours p50 / p99 (ms)", `${client["p50Ms"]} / ${client["p99Ms"]}`],
        ["raw p50 / p99 (ms)", `${client["rawP50Ms"]} / ${client["rawP99Ms"]}`],
        [
          "client CPU per request, ours / raw (µs)",
          `${client["cpuUsPerRequest"]} / ${client["rawCpuUsPerRequest"]}`,
        ],
      ]),
    );
  }
  const host = results["host"] as Record<string, number> | undefined;
  if (host !== undefined) {
    parts.push(
      table(
        `Access key creates through the provider host (N=${host["n"]}, concurrency ${host["concurrency"]})`,
        [
          ["provider host (creates/s)", String(host["createsPerSecond"])],
          ["raw POST (creates/s)", String(host["rawCreatesPerSecond"])],
          ["ratio raw/host", String(host["ratio"])],
          ["raw POST + read-back GET (creates/s)", String(host["rawWithReadBackPerSecond"])],
          ["provider host, no-op provider (creates/s)", String(host["noopHostCreatesPerSecond"])],
          ["requests per host create", String(host["requestsPerCreate"])],
        ],
      ),
    );
  }
  const up = results["up"] as Record<string, Record<string, number>> | undefined;
  if (up !== undefined) {
    parts.push(
      table(
        "pulumi up / refresh of N access keys (seconds) vs a no-op provider",
        Object.entries(up).map(([n, f]) => [
          `N=${n}`,
          `up ${f["seconds"]} (floor ${f["floorSeconds"]}, x${f["ratio"]})`,
          `refresh ${f["refreshSeconds"]} (floor ${f["floorRefreshSeconds"]}), state ${f["stateBytesPerResource"]} B/resource (floor ${f["floorStateBytesPerResource"]}), requests/key up ${f["upRequestsPerResource"]} refresh ${f["refreshRequestsPerResource"]}, CLI peak ${f["cliPeakMiB"]} MiB (floor ${f["floorCliPeakMiB"]}), with its processes ${f["treePeakMiB"]} MiB (floor ${f["floorTreePeakMiB"]})`,
        ]),
      ),
    );
  }
  const limits = ["rateLimited", "rateLimitedFaults", "latency"]
    .map((name) => [name, results[name]] as const)
    .filter((entry): entry is readonly [string, Record<string, number>] => entry[1] !== undefined);
  if (limits.length > 0) {
    parts.push(
      table(
        "pulumi up of 100 access keys against a rate-limited, slow or flaky API",
        limits.map(([name, figures]) => [
          name,
          Object.entries(figures)
            // Nested figures (the native door's run, requests by route) print as JSON.
            .map(([key, value]) => `${key} ${typeof value === "object" ? JSON.stringify(value) : value}`)
            .join(", "),
        ]),
      ),
    );
  }
  const native = results["native"] as
    | {
        resources: number;
        native: Record<string, number>;
        dynamic: Record<string, number>;
        floor: Record<string, number>;
        upRatioToFloor?: number;
        roundRatiosToFloor?: number[];
      }
    | undefined;
  if (native !== undefined) {
    parts.push(
      table(
        `pulumi up of ${native.resources} access keys: native vs dynamic resources vs a no-op provider`,
        (["native", "dynamic", "floor"] as const).map((which) => [
          which,
          `up ${native[which]["upSeconds"]} s`,
          `state ${native[which]["stateBytesPerResource"]} B/resource`,
        ]),
      ),
    );
    if (native.roundRatiosToFloor !== undefined)
      parts.push(
        `native up / floor up, round by round: ${native.roundRatiosToFloor.join(", ")} (median ${native.upRatioToFloor})`,
      );
    for (const which of ["native", "dynamic"] as const) {
      const entry = native[which]["entryBytes"] as unknown as
        { total: number; members: object; inputs: object; outputs: object } | undefined;
      if (entry === undefined) continue;
      parts.push(
        table(`One access key's checkpoint entry, ${which} (bytes, compact JSON)`, [
          ["total", String(entry.total)],
          ["members", JSON.stringify(entry.members)],
          ["inputs", JSON.stringify(entry.inputs)],
          ["outputs", JSON.stringify(entry.outputs)],
        ]),
      );
    }
  }
  const plugin = results["plugin"] as
    | {
        executableBytes: number;
        archiveBytes: number;
        nodeScriptPackageBytes: number;
        nodeBinaryBytes: number;
        startMs: Record<string, number>;
        previewSeconds: Record<string, number>;
      }
    | undefined;
  if (plugin !== undefined) {
    const mb = (n: number): string => `${(n / 1e6).toFixed(1)} MB`;
    parts.push(
      table("The broker plugin: single executable vs Node-script plugin", [
        [
          "single executable",
          `${mb(plugin.executableBytes)} (archive ${mb(plugin.archiveBytes)})`,
          `start ${plugin.startMs["singleExecutable"]} ms, preview ${plugin.previewSeconds["singleExecutable"]} s`,
        ],
        [
          "Node-script plugin",
          `${mb(plugin.nodeScriptPackageBytes)} installed + Node.js ${mb(plugin.nodeBinaryBytes)}`,
          `start ${plugin.startMs["nodeScript"]} ms, preview ${plugin.previewSeconds["nodeScript"]} s`,
        ],
      ]),
    );
  }
  const review = results["review"] as
    | {
        keys: number;
        bytes: number;
        parseAndAnalyzeMs: number;
        renderMs: number;
        totalMs: number;
        cpuMs: number;
        peakMiB: number | null;
        markdownChars: number;
      }[]
    | undefined;
  if (review !== undefined) {
    parts.push(
      table(
        "Access review, preview JSON to Markdown (fastest of 3)",
        review.map((run) => [
          `${run.keys} changed keys (${(run.bytes / 1e6).toFixed(1)} MB of JSON)`,
          `${run.totalMs} ms (read+analyse ${run.parseAndAnalyzeMs}, render ${run.renderMs}; CPU ${run.cpuMs})`,
          `peak ${run.peakMiB} MiB, comment ${run.markdownChars} chars`,
        ]),
      ),
    );
  }
  const importCost = results["importCost"] as
    { sdkCpuMs: number; packageCpuMs: number; beyondSdkCpuMs: number; onDemandCpuMs: number } | undefined;
  if (importCost !== undefined) {
    parts.push(
      table("Importing the package in a fresh process, CPU (median of 7)", [
        ["@pulumi/pulumi alone", `${importCost.sdkCpuMs} ms`],
        [
          "pulumi-broker-config (with @pulumi/pulumi)",
          `${importCost.packageCpuMs} ms (+${importCost.beyondSdkCpuMs} ms)`,
        ],
        ["its on-demand libraries, if loaded on import", `+${importCost.onDemandCpuMs} ms`],
      ]),
    );
  }
  parts.push(
    table(
      "Goals",
      goals.map((g) => [g.goal, g.met ? "met" : "NOT MET", g.detail]),
    ),
  );
  return parts.join("\n");
}
