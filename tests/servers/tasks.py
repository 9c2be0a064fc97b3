"""A server whose tools run as tasks, on either revision: `tasks.py MODE [--modern]`.

Without `--modern` it is a 2025-11-25 server (`capabilities.tasks`: list, cancel, tools.call; `taskSupport:
optional`; `tasks/result`); with it a 2026-07-28 server (`server/discover`, the `io.modelcontextprotocol/tasks`
extension; the task's result inline in `tasks/get`; -32021 for `tasks/*` from a client that did not declare it).
Tasks advance one step per `tasks/get`, so a run takes no time: `slow_report` is working, working, completed;
`flaky_job` ends with an `isError: true` result (`failed` on 2025-11-25, `completed` on 2026-07-28). Tasks live
for the ttl asked (60 s by default), poll interval 20 ms.

Modes, one planted defect each (rule in brackets):
- `well-formed`: none.
- `unsolicited`: a plain `tools/call` (no `params.task`, no extension declared) gets a task [spec.task-unsolicited].
- `illegal-transition`: a completed task is `working` again on the next `tasks/get` [spec.task-status].
- `iserror-status`: `flaky_job`'s isError result ends `completed` on 2025-11-25, `failed` on 2026-07-28
  [spec.task-iserror].
- `list-served`: with `--modern`, `tasks/list` and `tasks/result` answer [spec.task-methods].
- `ignored-ttl`: a task is forgotten as soon as it ends, long before its ttl [spec.task-ttl].
- `never-ends`: tasks stay `working` forever and cancel only on `tasks/cancel` (the CLI and app tests).
- `asks`: no defect; a task goes working, input_required (2026-07-28: an elicitation in `inputRequests`, answered
  with `tasks/update`), completed, and its result quotes the answer.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from rawserver import RawServer, RpcError, text_result, tool

MODES = (
    "well-formed",
    "unsolicited",
    "illegal-transition",
    "iserror-status",
    "list-served",
    "ignored-ttl",
    "never-ends",
    "asks",
)
EXT = "io.modelcontextprotocol/tasks"
META = "io.modelcontextprotocol/"
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
STAMP = "2026-11-26T08:00:00Z"


class Tasks:
    def __init__(self, mode: str, modern: bool) -> None:
        self.mode, self.modern = mode, modern
        self.tasks: dict[str, dict[str, Any]] = {}
        caps: dict[str, Any] = {"tools": {}}
        if modern:
            caps["extensions"] = {EXT: {}}
        else:
            caps["tasks"] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
        self.server = RawServer("tasks-server", caps)
        h = self.server.handlers
        h["tools/list"] = lambda _p: {"tools": self.tools()}
        h["tools/call"] = self.call
        h["tasks/get"] = self.get
        h["tasks/cancel"] = self.cancel
        h["tasks/update"] = self.update
        if not modern or mode == "list-served":
            h["tasks/result"] = self.result
            h["tasks/list"] = lambda p: {"tasks": [self.view(t) for t in self.tasks.values()]}
        if modern:
            h["server/discover"] = lambda _p: {
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": caps,
                "_meta": {META + "serverInfo": self.server.info},
            }

    def tools(self) -> list[dict[str, Any]]:
        extra: dict[str, Any] = {} if self.modern else {"execution": {"taskSupport": "optional"}}
        return [
            tool(
                "slow_report",
                "Builds a short report on a topic (a task).",
                {"topic": {"type": "string"}},
                ["topic"],
                annotations=READ_ONLY,
                **extra,
            ),
            tool("flaky_job", "A job that always reports a tool error (a task).", annotations=READ_ONLY, **extra),
        ]

    def wants_task(self, params: dict[str, Any]) -> bool:
        if not self.modern:
            return isinstance(params.get("task"), dict)
        caps = (params.get("_meta") or {}).get(META + "clientCapabilities") or {}
        return EXT in (caps.get("extensions") or {})

    def call(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        if name not in ("slow_report", "flaky_job"):
            raise RpcError(-32602, f"Unknown tool: {name}")
        failing = name == "flaky_job"
        result = text_result("the job failed: no such input" if failing else "Report: all good.", failing)
        if not self.wants_task(params) and self.mode != "unsolicited":
            return result
        task_id = f"task-{len(self.tasks) + 1:04d}-7f3e9c2a5b1d4e8f"
        ttl = (params.get("task") or {}).get("ttl", 60_000) if not self.modern else 60_000
        wrong = self.mode == "iserror-status"  # isError is failed on 2025-11-25, completed on 2026-07-28
        end = "completed" if not failing or (wrong != self.modern) else "failed"
        steps = {"never-ends": ["working"], "asks": ["working", "input_required", end]}.get(
            self.mode, ["working", "working", end]
        )
        self.tasks[task_id] = {"id": task_id, "steps": steps, "at": 0, "ttl": ttl, "result": result}
        task = self.view(self.tasks[task_id])
        return {"resultType": "task", **task} if self.modern else {"task": task}

    def view(self, t: dict[str, Any]) -> dict[str, Any]:
        ttl, poll = ("ttlMs", "pollIntervalMs") if self.modern else ("ttl", "pollInterval")
        status = t.get("cancelled") or t["steps"][min(t["at"], len(t["steps"]) - 1)]
        out = {
            "taskId": t["id"],
            "status": status,
            "statusMessage": f"step {t['at']}",
            "createdAt": STAMP,
            "lastUpdatedAt": STAMP,
            ttl: t["ttl"],
            poll: 20,
        }
        if self.modern and status == "input_required":
            ask = {"message": "Which topic?", "requestedSchema": {"type": "object", "properties": {}}}
            out["inputRequests"] = {"topic": {"method": "elicitation/create", "params": ask}}
        if self.modern and status == "completed":
            out["result"] = t["result"]
        if self.modern and status == "failed":  # the defect: a tool error reported as a failed task
            out["result"] = t["result"]
        return out

    def known(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.modern and not self.wants_task(params):
            raise RpcError(-32021, "the tasks extension was not declared on this request")
        t = self.tasks.get(str(params.get("taskId")))
        if t is None:
            raise RpcError(-32602, "Failed to retrieve task: Task not found")
        return t

    def get(self, params: dict[str, Any]) -> dict[str, Any]:
        t = self.known(params)
        t["at"] += 1
        out = self.view(t)
        ended = out["status"] in ("completed", "failed")
        if ended and self.mode == "ignored-ttl" and self.modern:
            del self.tasks[t["id"]]  # forgotten once its result went out, whatever its ttl said
        if ended and self.mode == "illegal-transition" and t["steps"][-1] != "working":
            t["steps"].append("working")  # terminal, then working again
        return {"resultType": "complete", **out} if self.modern else out

    def update(self, params: dict[str, Any]) -> dict[str, Any]:
        t = self.known(params)
        answers = json.dumps(params.get("inputResponses"), sort_keys=True)
        t["result"] = text_result(f"Report, with the answers {answers}.")
        return {"resultType": "complete"}

    def result(self, params: dict[str, Any]) -> dict[str, Any]:
        t = self.known(params)
        if self.mode == "ignored-ttl":
            del self.tasks[t["id"]]  # forgotten once its result went out, whatever its ttl said
        return {**t["result"], "_meta": {META + "related-task": {"taskId": t["id"]}}}

    def cancel(self, params: dict[str, Any]) -> dict[str, Any]:
        t = self.known(params)
        if self.view(t)["status"] in ("completed", "failed", "cancelled"):
            raise RpcError(-32602, "the task has already ended")
        t["cancelled"] = "cancelled"
        return {"resultType": "complete"} if self.modern else self.view(t)


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] not in MODES:
        print("modes: " + ", ".join(MODES) + " (add --modern for the 2026-07-28 extension)")
        sys.exit(2)
    Tasks(args[0], "--modern" in args).server.run()
