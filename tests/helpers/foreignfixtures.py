"""Hand-written Jules and Genkit snapshots shared by the format and app tests."""

from __future__ import annotations


PAGE = {
    "activities": [
        {"name": "sessions/1234567/activities/pg1", "id": "pg1", "createTime": "2025-10-01T09:00:05.123456Z",
         "originator": "agent", "description": "Plan generated",
         "planGenerated": {"plan": {"id": "plan-a", "steps": [
             {"id": "s0", "title": "Read the code"}, {"id": "s1", "title": "Fix it", "index": 1}],
             "createTime": "2025-10-01T09:00:05Z"}}},
        {"name": "sessions/1234567/activities/pa1", "id": "pa1", "createTime": "2025-10-01T09:00:09Z",
         "originator": "user", "planApproved": {"planId": "plan-a"}},
        {"name": "sessions/1234567/activities/pu1", "id": "pu1", "createTime": "2025-10-01T09:01:00Z",
         "originator": "agent", "description": "Ran the tests",
         "progressUpdated": {"title": "Running the tests", "description": "npm test in the repo root"},
         "artifacts": [{"bashOutput": {"command": "npm test", "output": "Tests: 12 passed\n"}}]},
        {"name": "sessions/1234567/activities/pu2", "id": "pu2", "createTime": "2025-10-01T09:02:00Z",
         "originator": "agent", "progressUpdated": {"title": "Linting"},
         "artifacts": [{"bashOutput": {"command": "npm run lint", "output": "1 error\n", "exitCode": 1}}]},
        {"name": "sessions/1234567/activities/x1", "id": "x1", "createTime": "2025-10-01T09:03:00Z",
         "originator": "agent", "description": "Cloned the repository into the VM"},
        {"name": "sessions/1234567/activities/cs1", "id": "cs1", "createTime": "2025-10-01T09:04:00Z",
         "originator": "agent", "progressUpdated": {},
         "artifacts": [{"changeSet": {"source": "sources/github/acme/shop", "gitPatch": {
             "unidiffPatch": "--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+b\n", "baseCommitId": "4be1f0c",
             "suggestedCommitMessage": "Fix x"}}}]},
        {"name": "sessions/1234567/activities/sc1", "id": "sc1", "createTime": "2025-10-01T09:05:00Z",
         "originator": "system", "sessionCompleted": {}},
    ],
    "nextPageToken": "CiAKGjBpNDd2Nmp2ZmlvdDdvNjJy",
}


S1, S2, S3, S4 = ("0b0d5c6e-1f52-4d1a-9a57-5a3c1e0f7a01", "7c1e8f02-55b3-4c8e-8d7e-2f4a6b9c0d12",
                  "c4a1d2e3-8b7f-4e6d-a5c4-3b2a1f0e9d23", "e9f8d7c6-b5a4-4392-8170-6f5e4d3c2b34")


M_HI = {"content": [{"text": "hi"}], "role": "user"}


M_HELLO = {"content": [{"reasoning": "greet back"}, {"text": "Hello! How can I help?"}], "role": "model"}


M_ASK = {"content": [{"text": "What's the weather in Lisbon?"}], "role": "user"}


M_CALL = {"content": [{"toolRequest": {"input": {"city": "Lisbon"}, "name": "getWeather", "ref": "call-1"}}],
          "role": "model"}


M_RESULT = {"content": [{"toolResponse": {"name": "getWeather", "output": {"tempC": 21}, "ref": "call-1"}}],
            "role": "tool"}


M_SUNNY = {"content": [{"text": "21 °C and clear."}], "role": "model"}


M_HELLO_1 = {**M_HELLO, "metadata": {"snapshotId": S1}}  # as later snapshots of invocation 1 hold them


M_SUNNY_2 = {**M_SUNNY, "metadata": {"snapshotId": S2}}


M_CHAN = {"content": [{"text": "Tell me about channels instead."}], "role": "user"}


M_CHAN_A = {"content": [{"text": "Channels are typed conduits."}], "role": "model"}


SHIPPED = [
    {"snapshotId": S1, "createdAt": "2026-04-21T09:45:28.123456789-07:00", "event": "turnEnd",
     "state": {"messages": [M_HI, M_HELLO]}},
    {"snapshotId": S2, "parentId": S1, "createdAt": "2026-04-21T09:45:41.000000001-07:00", "event": "turnEnd",
     "state": {"messages": [M_HI, M_HELLO_1, M_ASK, M_CALL, M_RESULT, M_SUNNY]}},
    {"snapshotId": S3, "parentId": S2, "createdAt": "2026-04-21T09:45:41.5-07:00", "event": "invocationEnd",
     "state": {"messages": [M_HI, M_HELLO_1, M_ASK, M_CALL, M_RESULT, M_SUNNY_2], "custom": {"topics": 2}}},
    {"snapshotId": S4, "parentId": S1, "createdAt": "2026-04-21T17:02:00Z", "event": "turnEnd",
     "state": {"messages": [M_HI, M_HELLO, M_CHAN, M_CHAN_A]}},
]
