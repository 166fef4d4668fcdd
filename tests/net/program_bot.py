"""A program that plays a seat for the tests, speaking JSON lines (docs/BOTS.md).

    python program_bot.py MANNER RECORD [AFTER]

It answers the first legal move (or -1 when it need not move) and appends what
it was sent, and what it answered, to the file RECORD as JSON lines. From its
AFTER-th line on (default 3) it behaves in its MANNER: ``first`` keeps playing
well; ``crash`` exits with status 3; ``garbage`` writes a line that is no
answer; ``stall`` stops answering; ``range`` answers an index past the end of
``legal``. It also writes a line to its standard error on its first line.
"""

from __future__ import annotations

import json
import os
import sys
import threading


def main() -> None:
    manner, record = sys.argv[1], sys.argv[2]
    after = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    count = 0
    with open(record, "a", encoding="utf-8") as out:
        for line in sys.stdin:
            message = json.loads(line)
            count += 1
            seen = {"pid": os.getpid(), "type": message["type"]}
            if message["type"] != "view":
                seen["reason"] = message["reason"]
                out.write(json.dumps(seen) + "\n")
                out.flush()
                continue
            if count == 1:
                print("thinking hard", file=sys.stderr, flush=True)
            legal = message["legal"]
            seen.update(
                number=message["number"],
                seat=message["seat"],
                waiting=message["waiting"],
                legal=legal,
                cards=len(message.get("cards", ())),
                log=message["log"],
                events=len(message["events"]),
                outcome=message["view"]["outcome"] is not None,
            )
            answer: object = 0 if message["waiting"] else -1
            if count >= after:
                if manner == "crash":
                    sys.exit(3)
                if manner == "garbage":
                    answer = "\x1b[31mmove zero please"
                elif manner == "stall":
                    out.write(json.dumps(seen) + "\n")
                    out.flush()
                    threading.Event().wait()  # never answers
                elif manner == "range":
                    answer = len(legal)
            seen["answer"] = answer
            out.write(json.dumps(seen) + "\n")
            out.flush()
            print(answer, flush=True)


if __name__ == "__main__":
    main()
