#!/usr/bin/env python3
"""Writes N realistic sessions as a journal export (JSON) or as a jrnl text journal.

Sizes follow the benchmark issue: intention ~200 B, reflection ~1.5 KB, a mix of statuses
(about 30 % still needing reflection). Deterministic for a given N.
    bench-data.py journal N > export.json
    bench-data.py jrnl N > journal.txt
"""
import json
import random
import sys
from datetime import datetime, timedelta, timezone

WORDS = ("breath light room music quiet body fear trust warmth grief open held soft edge "
         "colour wave memory child garden water stillness laughter tears guide ground").split()
TREATMENTS = ["psilocybin", "mdma", "ketamine", "lsd", "ayahuasca"]


def text(rng, size):
    out = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        out.append(word)
        length += len(word) + 1
    return " ".join(out).capitalize() + "."


def sessions(n):
    rng = random.Random(n)
    start = datetime(2016, 1, 1, tzinfo=timezone.utc)
    for i in range(n):
        date = start + timedelta(minutes=37 * i)
        complete = rng.random() > 0.3
        yield {
            "id": "%032x" % rng.getrandbits(128),
            "date": date, "treatment": rng.choice(TREATMENTS), "intention": text(rng, 200),
            "mood_before": rng.randint(1, 10), "mood_after": rng.randint(1, 10) if complete else None,
            "reflection": text(rng, 1500) if complete else None,
        }


def iso(d):
    return d.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    if kind == "journal":
        # Written a session at a time (a million sessions are 1.6 GB): the same bytes as
        # json.dump of the whole document, whose separators are ", " and ": ".
        out = sys.stdout
        out.write('{"format": "journal-export", "version": 1, "exported": %s, "sessions": ['
                  % json.dumps(iso(datetime.now(timezone.utc))))
        for index, s in enumerate(sessions(n)):
            sid = list(s["id"])
            sid[12] = "4"
            sid[16] = "89ab"[int(sid[16], 16) % 4]
            if index:
                out.write(", ")
            json.dump({
                "id": "".join(sid), "date": iso(s["date"]), "treatment": s["treatment"],
                "treatment_name": None, "dose": None, "intention": s["intention"],
                "mood_before": s["mood_before"], "environment": None, "music": None,
                "mood_after": s["mood_after"], "reflection": s["reflection"],
                "status": "complete" if s["reflection"] else "needs_reflection",
                "created": iso(s["date"]), "updated": iso(s["date"]),
            }, out)
        out.write("]}")
    else:
        for s in sessions(n):
            body = s["intention"] + ("\n" + s["reflection"] if s["reflection"] else "")
            sys.stdout.write("[%s] %s\n%s\n\n" % (s["date"].strftime("%Y-%m-%d %H:%M"), "Session.", body))


if __name__ == "__main__":
    main()
