#!/usr/bin/env python3
"""Builds samples/messages.jsonl, the sample dump of the README's quick start, from the real
utterances of the chatterbot corpus (BSD-3-Clause; ids, users and times are made up).

Usage: scripts/make-sample-dump.py DATA_DIR   (DATA_DIR holds corpus/chatterbot-messages.jsonl)

Deterministic: the same input gives the same file. Most lines stay in Winnow's item shape; to
exercise every reader, a share is rewritten as the platform's message history log (half with the
`yyyy/MM/dd HH:mm:ss` prefix), as message callback posts, as extension updates and as edits.
"""
import json
import sys
import time
from pathlib import Path

CHANNEL_TYPES = {1: "PERSON", 2: "PERSONS", 3: "GROUP", 4: "TEMPGROUP", 10: "ULTRAGROUP"}


def history_log(item, n):
    millis = item["sentTime"]
    moment = time.gmtime(millis // 1000)
    record = {
        "appId": "sample-app",
        "fromUserId": item["fromUserId"],
        "targetId": item["targetId"],
        "targetType": item["conversationType"],
        "GroupId": item["targetId"] if item["conversationType"] in (3, 10) else "",
        "classname": item["objectName"],
        "content": item["content"],
        "dateTime": time.strftime("%Y-%m-%d %H:%M:%S", moment) + ".%03d" % (millis % 1000),
        "msgUID": item["msgUID"],
        "timestamp": millis,
        "source": "Websocket",
        "isSensitiveWord": "false",
    }
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    if n % 2 == 0:
        return time.strftime("%Y/%m/%d %H:%M:%S", moment) + text
    return text


def callback(item):
    record = {
        "appKey": "sample-app",
        "fromUserId": item["fromUserId"],
        "targetId": item["targetId"],
        "toUserIds": "",
        "msgType": item["objectName"],
        "content": json.dumps(item["content"], ensure_ascii=False, separators=(",", ":")),
        "channelType": CHANNEL_TYPES.get(item["conversationType"], str(item["conversationType"])),
        "msgTimeStamp": str(item["sentTime"]),
        "messageId": item["msgUID"],
        "originalMsgUID": "",
        "busChannel": item.get("channelId", ""),
        "extraContent": "",
    }
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def extension(item):
    record = {k: item[k] for k in ("msgUID", "fromUserId", "targetId", "conversationType", "channelId", "sentTime")}
    record = {"kind": "extension", **record, "sourceContent": {"mid": item["msgUID"], "put": {"note": item["content"]["content"]}}}
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def edit(item):
    record = {"kind": "edit", **{k: v for k, v in item.items() if k != "content"}, "sourceContent": item["content"]}
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def main():
    source = Path(sys.argv[1]) / "corpus" / "chatterbot-messages.jsonl"
    out = []
    for n, line in enumerate(source.read_text(encoding="utf-8").splitlines()):
        item = json.loads(line)
        if n % 10 == 3:
            out.append(history_log(item, n // 10))
        elif n % 10 == 6:
            out.append(callback(item))
        elif n % 25 == 8:
            out.append(extension(item))
        elif n % 25 == 19:
            out.append(edit(item))
        else:
            out.append(json.dumps(item, ensure_ascii=False, separators=(",", ":")))
    target = Path(__file__).resolve().parent.parent / "samples" / "messages.jsonl"
    target.write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"{target}: {len(out)} lines")


if __name__ == "__main__":
    main()
