"""Records the reference FastAPI's answers to the parity corpus: test/oracle/recorded.json.

The corpus is built here; every request is sent as raw bytes to the reference app
(reference/app.py) under uvicorn on loopback, and its status, body and Location are kept.
The Vitest project `parity` (test/oracle/replay.test.ts) replays the same bytes against the
local stage and compares. CI replays only; it needs no Python.

To re-record (CPython 3.11 and the pinned reference):

    python3 -m venv /tmp/parity-venv
    /tmp/parity-venv/bin/pip install -r test/oracle/reference/requirements.txt
    /tmp/parity-venv/bin/python test/oracle/record.py

then review the diff of recorded.json: a changed answer is a change of the reference.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import fastapi
import pydantic
import python_multipart
import starlette

HERE = Path(__file__).resolve().parent
NOTIFY = "/api/v1/user/me/file/notify"
UPLOAD = "/api/v1/user/me/file"
TOKEN = "/api/v1/auth/get-realtime-token"


def put_url(group="1", deal="1", file="11") -> str:
    return f"/api/v1/group/{group}/deal/{deal}/file/{file}"


CASES: list[dict] = []


def case(
    case_id: str,
    method: str,
    path: str,
    body: bytes = b"",
    content_type: str | list[str] | None = None,
    user: int | None = 1,
    volatile: tuple[str, ...] = (),
    compare: str = "body",
) -> None:
    # A list sends one Content-Type header line per entry, in order.
    lines = [] if content_type is None else [content_type] if isinstance(content_type, str) else content_type
    headers = [["content-type", line] for line in lines]
    CASES.append(
        {
            "id": case_id,
            "request": {
                "method": method,
                "path": path,
                "user": user,
                "headers": headers,
                "body": base64.b64encode(body).decode(),
            },
            "compare": compare,
            "volatile": list(volatile),
        }
    )


def as_json(value) -> bytes:
    return json.dumps(value).encode()


# Bodies no JSON reader takes, or takes only as Python does: each at its own offset.
BAD_JSON = {
    "empty": b"",
    "whitespace": b" \n ",
    "null": b"null",
    "open-brace": b"{",
    "key-only": b'{"file_ids"',
    "colon-only": b'{"file_ids":',
    "open-list": b'{"file_ids":[1',
    "trailing-comma-list": b'{"file_ids":[1,]}',
    "trailing-comma-object": b'{"file_ids":[1],}',
    "single-quotes": b"{'file_ids':[1]}",
    "extra-data": b'{"file_ids":[1]} x',
    "extra-brace": b'{"file_ids":[1]}}',
    "bad-escape": b'{"a":"\\x"}',
    "short-unicode-escape": b'{"a":"\\u12"}',
    "control-char": b'{"a":"\x01"}',
    "unterminated-string": b'{"a":"abc',
    "unterminated-escape": b'{"a":"abc\\',
    "missing-colon": b'{"a" 1}',
    "missing-comma": b'{"a":1 "b":2}',
    "list-missing-comma": b"[1 2]",
    "leading-zero": b'{"file_ids":[01]}',
    "bare-dot": b'{"file_ids":[1.]}',
    "leading-dot": b'{"file_ids":[.5]}',
    "lone-minus": b'{"file_ids":[-]}',
    "plus-sign": b'{"file_ids":[+1]}',
    "partial-null": b"nul",
    "partial-true": b"tru",
    "utf8-invalid": b'{"file_ids":[1], "x": "\xc3\x28"}',
    "latin1": b'{"fund_name":"\xe9"}',
    "utf8-bom": b'\xef\xbb\xbf{"file_ids":[101]}',
    "utf16le": '{"file_ids":[101]}'.encode("utf-16-le"),
    "utf16be-bom": b"\xfe\xff" + '{"file_ids":[101]}'.encode("utf-16-be"),
    "utf32le": '{"file_ids":[101]}'.encode("utf-32-le"),
    "top-list": b"[1, 2]",
    "top-string": b'"text"',
    "top-number": b"42",
    "top-float": b"1.0",
    "top-bool": b"true",
    "deep-ok": b'{"x":' + b"[" * 50 + b"]" * 50 + b', "file_ids": "x"}',
    "deep-900": b'{"x":' + b"[" * 900 + b"]" * 900 + b', "file_ids": "x"}',
    "deep-1001": b'{"x":' + b"[" * 1001 + b"]" * 1001 + b', "file_ids": "x"}',
    "deep-5000": b'{"x":' + b"[" * 5000 + b"]" * 5000 + b', "file_ids": "x"}',
}

CONTENT_TYPES = {
    "none": None,
    "empty": "",
    "text-plain": "text/plain",
    "charset": "application/json; charset=utf-8",
    "vendor-json": "application/vnd.api+json",
    "upper-case": "Application/JSON",
    "not-one-type": "application/json/x",
    "urlencoded": "application/x-www-form-urlencoded",
    "multipart": "multipart/form-data; boundary=XB",
}

# Content-Type sent as several header lines: Starlette reads the first. API Gateway joins
# them with commas, so the service reads up to the first comma outside quotes; a single
# header with a bare comma (which RFC 9110 allows nowhere in a media type) reads the same.
CONTENT_TYPE_LINES = {
    "two/json-first": ["application/json", "text/plain"],
    "two/text-first": ["text/plain", "application/json"],
    "two/empty-first": ["", "application/json"],
    "two/quoted-comma-in-first": ['application/json; x="a,b"', "text/plain"],
    "one-with-a-comma": ["application/json, text/plain"],
}

NUMBERS = {
    "max-safe": b"9007199254740991",
    "max-safe-plus-1": b"9007199254740992",
    "max-safe-plus-2": b"9007199254740993",
    "i64-overflow": b"9223372036854775808",
    "thirty-digits": b"123456789012345678901234567890",
    "minus-one": b"-1",
    "zero": b"0",
    "minus-zero": b"-0",
    "one-point-zero": b"1.0",
    "one-point-five": b"1.5",
    "1e3": b"1e3",
    "1E3": b"1E3",
    "1e18": b"1e18",
    "1e20": b"1e20",
    "1e308": b"1e308",
    "1e-3": b"1e-3",
    "string-1": b'"1"',
    "string-spaced": b'" 101 "',
    "string-underscore": b'"1_000"',
    "string-hex": b'"0x10"',
    "string-float": b'"101.0"',
    "string-exponent": b'"1e3"',
    "string-huge": b'"99999999999999999999"',
    "true": b"true",
    "false": b"false",
    "null": b"null",
    "list": b"[1]",
    "object": b"{}",
    "digits-4300": b"1" * 4300,
    "digits-4301": b"1" * 4301,
}


def notify_cases() -> None:
    j = "application/json"
    case("notify/one-file", "POST", NOTIFY, as_json({"file_ids": [101]}), j, volatile=("notification_id",))
    case("notify/duplicates-count-once", "POST", NOTIFY, as_json({"file_ids": [101, 102, 101]}), j, volatile=("notification_id",))
    case("notify/fund-and-message", "POST", NOTIFY, as_json({"file_ids": [102], "fund_name": "Acme Fund III", "message": "Final deck"}), j, volatile=("notification_id",))
    case("notify/nulls", "POST", NOTIFY, as_json({"file_ids": [101], "fund_name": None, "message": None}), j, volatile=("notification_id",))
    case("notify/extra-fields-ignored", "POST", NOTIFY, b'{"file_ids":[101],"user_id":2,"__proto__":{"x":1}}', j, volatile=("notification_id",))
    case("notify/duplicate-keys-last-wins", "POST", NOTIFY, b'{"file_ids":"x","file_ids":[101]}', j, volatile=("notification_id",))
    case("notify/unknown-id", "POST", NOTIFY, as_json({"file_ids": [999]}), j)
    case("notify/another-users-id", "POST", NOTIFY, as_json({"file_ids": [101, 201, 999]}), j)
    case("notify/as-user-2", "POST", NOTIFY, as_json({"file_ids": [201]}), j, user=2, volatile=("notification_id",))
    case("notify/user-without-files", "POST", NOTIFY, as_json({"file_ids": [101]}), j, user=4)
    case("notify/100-ids", "POST", NOTIFY, as_json({"file_ids": list(range(1, 101))}), j)
    case("notify/101-ids", "POST", NOTIFY, as_json({"file_ids": list(range(1, 102))}), j)
    case("notify/101-bad-ids", "POST", NOTIFY, as_json({"file_ids": ["x"] * 101}), j)
    case("notify/empty-list", "POST", NOTIFY, as_json({"file_ids": []}), j)
    case("notify/empty-list-and-bad-fund", "POST", NOTIFY, as_json({"file_ids": [], "fund_name": 5}), j)
    case("notify/missing-file-ids", "POST", NOTIFY, as_json({"fund_name": "x"}), j)
    case("notify/empty-object", "POST", NOTIFY, b"{}", j)
    case("notify/every-field-wrong", "POST", NOTIFY, as_json({"file_ids": "x", "fund_name": [], "message": {}}), j)
    case("notify/mixed-entries", "POST", NOTIFY, b'{"file_ids":[101, "x", 1.5, null, true, [1], {}, " 102 "]}', j)
    for name, lexeme in NUMBERS.items():
        case(f"notify/file-ids-entry/{name}", "POST", NOTIFY, b'{"file_ids":[' + lexeme + b"]}", j, volatile=("notification_id",))
        case(f"notify/file-ids-whole/{name}", "POST", NOTIFY, b'{"file_ids":' + lexeme + b"}", j)
        case(f"notify/fund-name/{name}", "POST", NOTIFY, b'{"file_ids":[101],"fund_name":' + lexeme + b"}", j, volatile=("notification_id",))
    for name, value in {
        "fund-200": "f" * 200,
        "fund-201": "f" * 201,
        "fund-200-emoji": "\U0001f600" * 200,
        "fund-201-emoji": "\U0001f600" * 201,
        "fund-bidi": "Acme\u202eFund",
    }.items():
        case(f"notify/{name}", "POST", NOTIFY, as_json({"file_ids": [101], "fund_name": value}), j, volatile=("notification_id",))
    case("notify/json/escaped-lone-surrogate", "POST", NOTIFY, b'{"file_ids":[101],"fund_name":"a\\ud800"}', j)
    case("notify/json/lone-surrogate", "POST", NOTIFY, b'{"file_ids":[101],"fund_name":"\xed\xa0\x80"}', j, volatile=("notification_id",))
    case("notify/message-2001", "POST", NOTIFY, as_json({"file_ids": [101], "message": "m" * 2001}), j)
    case("notify/message-2000", "POST", NOTIFY, as_json({"file_ids": [101], "message": "m" * 2000}), j, volatile=("notification_id",))
    for name, body in BAD_JSON.items():
        volatile = ("notification_id",) if name in ("utf8-bom", "utf16le", "utf16be-bom", "utf32le") else ()
        case(f"notify/json/{name}", "POST", NOTIFY, body, j, volatile=volatile)
    for name, content_type in CONTENT_TYPES.items():
        case(f"notify/content-type/{name}", "POST", NOTIFY, as_json({"file_ids": [101]}), content_type, volatile=("notification_id",))
    for name, lines in CONTENT_TYPE_LINES.items():
        case(f"notify/content-type/{name}", "POST", NOTIFY, as_json({"file_ids": [101]}), lines, volatile=("notification_id",))
    for value in ("NaN", "Infinity", "-Infinity"):
        case(f"notify/json/{value}-ignored", "POST", NOTIFY, b'{"file_ids":[101],"x":' + value.encode() + b"}", j, volatile=("notification_id",))
        case(f"notify/json/{value}-in-file-ids", "POST", NOTIFY, b'{"file_ids":[' + value.encode() + b"]}", j)


def put_cases() -> None:
    j = "application/json"
    deck = as_json({"type": "deck"})
    case("put/editor-sets-type", "PUT", put_url(), as_json({"type": "financials"}), j, volatile=("updated_at",))
    case("put/editor-same-type", "PUT", put_url(), as_json({"type": "financials"}), j, volatile=("updated_at",))
    case("put/editor-empty-object", "PUT", put_url(), b"{}", j, volatile=("updated_at",))
    case("put/editor-clears-type", "PUT", put_url(), as_json({"type": None}), j, volatile=("updated_at",))
    case("put/editor-extra-fields-ignored", "PUT", put_url(), as_json({"type": "deck", "name": "x", "id": 5, "deal_id": 9}), j, volatile=("updated_at",))
    case("put/viewer", "PUT", put_url(), deck, j, user=2)
    case("put/viewer-bad-body", "PUT", put_url(), as_json({"type": "nope"}), j, user=2)
    case("put/non-member", "PUT", put_url(), deck, j, user=3)
    case("put/non-member-missing-file", "PUT", put_url(file="999"), deck, j, user=3)
    case("put/other-group-member", "PUT", put_url("2", "3", "13"), deck, j, user=1)
    case("put/deal-not-in-group", "PUT", put_url("1", "3", "13"), deck, j)
    case("put/file-of-another-deal", "PUT", put_url("1", "2", "11"), deck, j)
    case("put/viewer-missing-file", "PUT", put_url(file="999"), deck, j, user=2)
    case("put/missing-file", "PUT", put_url(file="999"), deck, j)
    case("put/missing-group", "PUT", put_url("77"), deck, j)
    for value in ("deck", "financials", "raw_data", "snapshot", "full", "mini", "nano", "other"):
        case(f"put/type/{value}", "PUT", put_url("1", "2", "12"), as_json({"type": value}), j, volatile=("updated_at",))
    for name, raw in {
        "unknown": b'"slides"',
        "upper-case": b'"DECK"',
        "number": b"1",
        "float": b"1.0",
        "bool": b"true",
        "list": b'["deck"]',
        "object": b'{"v":"deck"}',
        "empty-string": b'""',
        "big-int": b"9223372036854775808",
    }.items():
        case(f"put/type/{name}", "PUT", put_url(), b'{"type":' + raw + b"}", j)
    for position in ("group", "deal", "file"):
        for name, text in {
            "word": "x",
            "float": "1.5",
            "exponent": "1e3",
            "hex": "0x1",
            "empty-space": "%20",
            "spaced": "%2011%20",
            "plus": "+11",
            "whole-float": "11.0",
            "leading-zeros": "011",
            "negative": "-11",
            "zero": "0",
            "huge": "9223372036854775808",
            "thirty-digits": "123456789012345678901234567890",
            "encoded-slash": "1%2F2",
            "underscore": "1_1",
        }.items():
            ids = {"group": "1", "deal": "1", "file": "11"}
            ids[position] = text
            case(f"put/path/{position}/{name}", "PUT", put_url(**ids), deck, j, volatile=("updated_at",))
    case("put/path/all-bad-and-body-bad", "PUT", put_url("a", "b", "c"), as_json({"type": "nope"}), j)
    for name, body in BAD_JSON.items():
        case(f"put/json/{name}", "PUT", put_url(), body, j, volatile=("updated_at",))
    for name, content_type in CONTENT_TYPES.items():
        case(f"put/content-type/{name}", "PUT", put_url(), deck, content_type, volatile=("updated_at",))
    for name, lines in CONTENT_TYPE_LINES.items():
        case(f"put/content-type/{name}", "PUT", put_url(), deck, lines, volatile=("updated_at",))


def own_url(file="101") -> str:
    return f"{UPLOAD}/{file}"


def patch_cases() -> None:
    j = "application/json"
    changed = ("updated_at", "location")
    case("patch/archive", "PATCH", own_url(), as_json({"is_archived": True}), j, volatile=changed)
    case("patch/archive-again", "PATCH", own_url(), as_json({"is_archived": True}), j, volatile=changed)
    case("patch/unarchive", "PATCH", own_url(), as_json({"is_archived": False}), j, volatile=changed)
    case("patch/rename", "PATCH", own_url(), as_json({"name": " Q3 deck (final).pdf "}), j, volatile=changed)
    case("patch/rename-and-archive", "PATCH", own_url("102"), as_json({"name": "old.pdf", "is_archived": True}), j, volatile=changed)
    case("patch/name-255", "PATCH", own_url("102"), as_json({"name": "n" * 255}), j, volatile=changed)
    case("patch/name-255-emoji", "PATCH", own_url("102"), as_json({"name": "\U0001F4C4" * 255}), j, volatile=changed)
    case("patch/empty-object", "PATCH", own_url(), b"{}", j, volatile=changed)
    case("patch/untouched-file", "PATCH", own_url("201"), b"{}", j, user=2, volatile=("location",))
    case(
        "patch/extra-fields-ignored",
        "PATCH",
        own_url(),
        as_json({"id": 5, "user_id": 2, "filesize": 1, "location": "s3://x/y", "created_at": "x", "type": "other"}),
        j,
        volatile=changed,
    )
    case("patch/other-users-file", "PATCH", own_url("201"), as_json({"is_archived": True}), j)
    case("patch/other-users-file-bad-body", "PATCH", own_url("201"), as_json({"is_archived": "maybe"}), j)
    case("patch/unknown-file", "PATCH", own_url("999"), as_json({"is_archived": True}), j)
    for name, raw in {
        "true": b"true",
        "string-yes": b'"yes"',
        "string-off": b'"off"',
        "string-TRUE": b'"TRUE"',
        "string-spaced": b'" true "',
        "string-maybe": b'"maybe"',
        "string-empty": b'""',
        "one": b"1",
        "zero": b"0",
        "two": b"2",
        "one-point-zero": b"1.0",
        "one-point-five": b"1.5",
        "big-int": b"9223372036854775808",
        "null": b"null",
        "list": b"[true]",
        "object": b"{}",
    }.items():
        case(f"patch/is-archived/{name}", "PATCH", own_url("201"), b'{"is_archived":' + raw + b"}", j, user=2, volatile=changed)
    for name, raw in {
        "empty": b'""',
        "space": b'" "',
        "256": as_json("n" * 256),
        "256-emoji": as_json("\U0001F4C4" * 256),
        "number": b"5",
        "bool": b"true",
        "null": b"null",
        "list": b'["a"]',
        "object": b'{"a":1}',
        "lone-surrogate": b'"a\\ud800"',
    }.items():
        case(f"patch/name/{name}", "PATCH", own_url("201"), b'{"name":' + raw + b"}", j, user=2, volatile=changed)
    case("patch/both-bad", "PATCH", own_url("201"), as_json({"name": "", "is_archived": "maybe"}), j, user=2)
    for name, text in {"word": "x", "float": "1.5", "negative": "-101", "zero": "0", "huge": "9223372036854775808", "encoded-slash": "1%2F2"}.items():
        case(f"patch/path/{name}", "PATCH", own_url(text), as_json({"is_archived": True}), j)
    case("patch/path-and-body-bad", "PATCH", own_url("x"), as_json({"is_archived": "maybe"}), j)
    for name, body in BAD_JSON.items():
        case(f"patch/json/{name}", "PATCH", own_url("201"), body, j, user=2, volatile=changed)
    for name, content_type in CONTENT_TYPES.items():
        case(f"patch/content-type/{name}", "PATCH", own_url("201"), b"{}", content_type, user=2, volatile=changed)
    for name, lines in CONTENT_TYPE_LINES.items():
        case(f"patch/content-type/{name}", "PATCH", own_url("201"), b"{}", lines, user=2, volatile=changed)


def delete_cases() -> None:
    case("delete/other-users-file", "DELETE", own_url("201"))
    case("delete/unknown-file", "DELETE", own_url("999"))
    for name, text in {"word": "x", "float": "1.5", "zero": "0", "huge": "9223372036854775808", "encoded-slash": "1%2F2"}.items():
        case(f"delete/path/{name}", "DELETE", own_url(text))
    case("delete/own-file", "DELETE", own_url("102"))
    case("delete/again", "DELETE", own_url("102"))
    case("delete/then-patch", "PATCH", own_url("102"), b"{}", "application/json")
    case("delete/other-user-still-has-theirs", "PATCH", own_url("201"), b"{}", "application/json", user=2, volatile=("updated_at", "location"))


def room(group: int | str = 1, deal: int | str = 1, env: str = "local") -> str:
    return f"{env}:v1:group:{group}:deal:{deal}"


def token_cases() -> None:
    j = "application/json"
    ok = ("token",)
    case("token/general", "POST", TOKEN, as_json({"room_ids": []}), j, volatile=ok)
    case("token/editor-room", "POST", TOKEN, as_json({"room_ids": [room()]}), j, volatile=ok)
    case("token/viewer-room", "POST", TOKEN, as_json({"room_ids": [room()]}), j, user=2, volatile=ok)
    case("token/two-rooms", "POST", TOKEN, as_json({"room_ids": [room(), room(1, 2)]}), j, volatile=ok)
    case("token/duplicates", "POST", TOKEN, as_json({"room_ids": [room()] * 50}), j, volatile=ok)
    case("token/51-rooms", "POST", TOKEN, as_json({"room_ids": [room()] * 51}), j)
    case("token/51-bad-rooms", "POST", TOKEN, as_json({"room_ids": ["x"] * 51}), j)
    case("token/non-member", "POST", TOKEN, as_json({"room_ids": [room(2, 3)]}), j)
    case("token/one-inaccessible", "POST", TOKEN, as_json({"room_ids": [room(), room(2, 3)]}), j)
    case("token/deal-not-in-group", "POST", TOKEN, as_json({"room_ids": [room(1, 3)]}), j)
    case("token/other-environment", "POST", TOKEN, as_json({"room_ids": [room(env="production")]}), j)
    case("token/sixteen-digit-ids", "POST", TOKEN, as_json({"room_ids": [room(9999999999999999, 1)]}), j)
    case("token/user-without-groups", "POST", TOKEN, as_json({"room_ids": []}), j, user=4, volatile=ok)
    for name, value in {
        "deal-zero": room(1, 0),
        "group-leading-zero": room("01", 1),
        "upper-case-env": room(env="LOCAL"),
        "version-2": "local:v2:group:1:deal:1",
        "extra-segment": room() + ":x",
        "empty": "",
        "no-deal": "local:v1:group:1",
        "seventeen-digits": room(12345678901234567, 1),
        "spaces": " " + room(),
        "newline": room() + "\n",
        "env-33-chars": room(env="a" * 33),
        "env-digit-first": room(env="1local"),
        "negative": room(-1, 1),
        "unicode-digit": "local:v1:group:\u0661:deal:1",
    }.items():
        case(f"token/room/{name}", "POST", TOKEN, as_json({"room_ids": [value]}), j)
    for name, raw in {
        "string": b'"x"',
        "null": b"null",
        "number": b"1",
        "object": b"{}",
        "entry-number": b"[1]",
        "entry-null": b"[null]",
        "entry-bool": b"[true]",
        "entry-list": b"[[]]",
        "entry-float": b"[1.0]",
        "entry-big": b"[9223372036854775808]",
        "mixed": b'["local:v1:group:1:deal:1", 5, "bad"]',
    }.items():
        case(f"token/room-ids/{name}", "POST", TOKEN, b'{"room_ids":' + raw + b"}", j)
    case("token/missing", "POST", TOKEN, b"{}", j)
    case("token/extra-fields", "POST", TOKEN, b'{"room_ids":[],"sub":"2","rooms":{}}', j, volatile=ok)
    for name, body in BAD_JSON.items():
        case(f"token/json/{name}", "POST", TOKEN, body, j)
    for name, content_type in CONTENT_TYPES.items():
        case(f"token/content-type/{name}", "POST", TOKEN, as_json({"room_ids": []}), content_type, volatile=ok)
    for name, lines in CONTENT_TYPE_LINES.items():
        case(f"token/content-type/{name}", "POST", TOKEN, as_json({"room_ids": []}), lines, volatile=ok)


def multipart(parts: list[tuple[str, bytes]], before: bytes = b"", after: bytes | None = None, boundary: str = "XB") -> bytes:
    dash = b"--" + boundary.encode("latin-1")
    closing = dash + b"--\r\n" if after is None else after
    return before + b"".join(dash + b"\r\n" + h.encode("latin-1") + b"\r\n\r\n" + v + b"\r\n" for h, v in parts) + closing


def upload_cases() -> None:
    mp = "multipart/form-data; boundary=XB"
    file_part = ('Content-Disposition: form-data; name="file"; filename="deck.pdf"\r\nContent-Type: application/pdf', b"%PDF-1.4 data")
    name = ('Content-Disposition: form-data; name="name"', b"deck.pdf")
    typ = ('Content-Disposition: form-data; name="type"', b"deck")
    created = ("id", "created_at", "location")

    def up(case_id: str, body: bytes, content_type: str | list[str] | None = mp, volatile=created) -> None:
        case(f"upload/{case_id}", "POST", UPLOAD, body, content_type, volatile=volatile)

    up("valid", multipart([file_part, name, typ]))
    up("parts-in-another-order", multipart([typ, name, file_part]))
    up("missing-file", multipart([name, typ]))
    up("missing-name", multipart([file_part, typ]))
    up("missing-type", multipart([file_part, name]))
    up("missing-all", multipart([]))
    up("empty-name", multipart([file_part, ('Content-Disposition: form-data; name="name"', b""), typ]))
    up("name-255", multipart([file_part, ('Content-Disposition: form-data; name="name"', b"n" * 255), typ]))
    up("name-256", multipart([file_part, ('Content-Disposition: form-data; name="name"', b"n" * 256), typ]))
    up("name-utf8", multipart([file_part, ('Content-Disposition: form-data; name="name"', "Résumé ✓.pdf".encode()), typ]))
    up("name-latin1", multipart([file_part, ('Content-Disposition: form-data; name="name"', b"r\xe9sum\xe9.pdf"), typ]))
    for value in (b"slides", b"DECK", b"", b" deck"):
        up(f"type/{value.decode() or 'empty'}", multipart([file_part, name, ('Content-Disposition: form-data; name="type"', value)]))
    up("empty-file", multipart([('Content-Disposition: form-data; name="file"; filename="e.bin"', b""), name, typ]))
    up("filename-empty", multipart([('Content-Disposition: form-data; name="file"; filename=""', b"data"), name, typ]))
    up("filename-star-only", multipart([("Content-Disposition: form-data; name=\"file\"; filename*=UTF-8''a.pdf", b"data"), name, typ]))
    up("filename-windows-path", multipart([('Content-Disposition: form-data; name="file"; filename="C:\\\\dir\\\\a.pdf"', b"data"), name, typ]))
    up("file-as-plain-field", multipart([('Content-Disposition: form-data; name="file"', b"data"), name, typ]))
    up("file-where-name-belongs", multipart([file_part, ('Content-Disposition: form-data; name="name"; filename="n.txt"', b"n"), typ]))
    up("part-without-name", multipart([('Content-Disposition: form-data; filename="a"', b"x"), file_part, name, typ]))
    up("part-without-headers", multipart([("", b"x"), file_part, name, typ]))
    up("text-before-boundary", multipart([file_part, name, typ], before=b"junk\r\n"))
    up("line-breaks-before-boundary", multipart([file_part, name, typ], before=b"\r\n"))
    up("epilogue", multipart([file_part, name, typ], after=b"--XB--\r\ntrailing words"))
    up("no-closing-delimiter", multipart([name, typ], after=b"--XB\r\n" + 'Content-Disposition: form-data; name="file"; filename="a"\r\n\r\ndat'.encode()))
    up("lf-line-ends", multipart([file_part, name, typ]).replace(b"\r\n", b"\n"))
    up("header-without-colon", multipart([("bogus header\r\n" + file_part[0], file_part[1]), name, typ]))
    up("attachment-disposition", multipart([file_part, ('Content-Disposition: attachment; name="name"', b"deck.pdf"), typ]))
    up("unquoted-name", multipart([file_part, ("Content-Disposition: form-data; name=name", b"deck.pdf"), typ]))
    up("header-case", multipart([file_part, ('content-DISPOSITION: form-data; name="name"', b"deck.pdf"), typ]))
    up("boundary-in-value", multipart([file_part, ('Content-Disposition: form-data; name="name"', b"a\r\n--XBb.pdf"), typ]))
    up("part-named-proto", multipart([('Content-Disposition: form-data; name="__proto__"; filename="a"', b"x"), name, typ]))
    up("part-named-constructor", multipart([('Content-Disposition: form-data; name="constructor"', b"x"), file_part, name, typ]))
    up("name-twice", multipart([file_part, name, ('Content-Disposition: form-data; name="name"', b"second.pdf"), typ]))
    up("file-twice", multipart([file_part, file_part, name, typ]))
    up("empty-body", b"")
    up("blank-body", b"   \r\n")
    up("closing-delimiter-only", b"--XB--\r\n")
    up("empty-boundary", multipart([file_part, name, typ]), "multipart/form-data; boundary=")
    up("no-boundary", multipart([file_part, name, typ]), "multipart/form-data")
    up("quoted-boundary", multipart([file_part, name, typ]), 'multipart/form-data; boundary="XB"')
    up("no-space-before-boundary", multipart([file_part, name, typ]), "multipart/form-data;boundary=XB")
    up("upper-case-media-type", multipart([file_part, name, typ]), "Multipart/Form-Data; boundary=XB")
    up("urlencoded", b"name=deck.pdf&type=deck&file=x", "application/x-www-form-urlencoded")
    up("urlencoded-without-file", b"name=deck.pdf&type=deck", "application/x-www-form-urlencoded")
    up("json", as_json({"name": "deck.pdf", "type": "deck"}), "application/json")
    up("text", b"hello", "text/plain")
    up("no-content-type", b"hello", None)
    # Two Content-Type header lines: Starlette reads the first.
    up("two-content-types/form-first", multipart([file_part, name, typ]), [mp, "text/plain"])
    up("two-content-types/text-first", multipart([file_part, name, typ]), ["text/plain", mp])
    up("two-content-types/quoted-comma-in-boundary", multipart([file_part, name, typ], boundary="X,B"), ['multipart/form-data; boundary="X,B"', "text/plain"])
    up("comma-in-unquoted-boundary", multipart([file_part, name, typ], boundary="X,B"), "multipart/form-data; boundary=X,B")
    # python-multipart's own limits: 8 header lines a part, 4,224 bytes a line, a boundary of 256.
    file_lines = lambda *extra: (file_part[0] + "".join("\r\n" + line for line in extra), file_part[1])
    pad = lambda size: "X-Pad: " + "a" * (size - len("X-Pad: "))
    up("header-lines-8", multipart([file_lines(*["X-A: 1"] * 6), name, typ]))
    up("header-lines-9", multipart([file_lines(*["X-A: 1"] * 7), name, typ]))
    up("header-line-4224", multipart([file_lines(pad(4224)), name, typ]))
    up("header-line-4225", multipart([file_lines(pad(4225)), name, typ]))
    up("header-name-4225", multipart([file_lines("X" * 4224 + ": 1"), name, typ]))
    up("header-line-4225-cut-off", multipart([file_part, name, typ], after=b"--XB\r\nContent-Disposition: form-data; name=\"x\"\r\n" + pad(4225).encode()))
    up("header-line-4224-cut-off", multipart([file_part, name, typ], after=b"--XB\r\nContent-Disposition: form-data; name=\"x\"\r\n" + pad(4224).encode()))
    up("boundary-256", multipart([file_part, name, typ], boundary="b" * 256), "multipart/form-data; boundary=" + "b" * 256)
    up("boundary-257", multipart([file_part, name, typ], boundary="b" * 257), "multipart/form-data; boundary=" + "b" * 257)
    up("boundary-257-empty-body", b"", "multipart/form-data; boundary=" + "b" * 257)
    # Quotes weighed as python-multipart weighs them: `"a\\"` leaves one open, which runs on.
    up("filename-backslash-before-name", multipart([('Content-Disposition: form-data; filename="a\\\\"; name="file"', b"data"), name, typ]))
    up("filename-backslash-after-name", multipart([('Content-Disposition: form-data; name="file"; filename="a\\\\"', b"data"), name, typ]))
    up("disposition-key-without-value", multipart([file_part, ("Content-Disposition: form-data; NAME", b"deck.pdf"), typ]))
    # An urlencoded field: Starlette's max_part_size counts its name and value as sent.
    u = "application/x-www-form-urlencoded"
    up("urlencoded-field-16384", b"pad=" + b"p" * 16381 + b"&name=deck.pdf&type=deck", u)
    up("urlencoded-field-16385", b"pad=" + b"p" * 16382 + b"&name=deck.pdf&type=deck", u)
    up("urlencoded-leading-question-mark", b"?name=deck.pdf&type=deck", u)
    up("urlencoded-bytes-beside-escapes", b"name=" + b"%C3\xe9" * 128 + b"&type=deck+", u)


def route_cases() -> None:
    case("route/unknown-path", "GET", "/api/v1/nope")
    case("route/root", "GET", "/")
    case("route/version-2", "GET", "/api/v2/user/me/file")
    case("route/list", "GET", UPLOAD, compare="status")
    case("route/list-as-user-4", "GET", UPLOAD, user=4)
    case("route/list-with-query", "GET", UPLOAD + "?limit=5", compare="status")
    case("route/delete-list", "DELETE", UPLOAD)
    case("route/patch-list", "PATCH", UPLOAD)
    case("route/get-notify", "GET", NOTIFY)
    case("route/get-token", "GET", TOKEN)
    case("route/post-deal-file", "POST", put_url())
    case("route/list-trailing-slash", "GET", UPLOAD + "/")
    case("route/list-trailing-slash-query", "GET", UPLOAD + "/?a=1")
    case("route/notify-trailing-slash", "POST", NOTIFY + "/", as_json({"file_ids": [101]}), "application/json")
    case("route/put-trailing-slash", "PUT", put_url() + "/", b"{}", "application/json")
    case("route/token-trailing-slash", "POST", TOKEN + "/", b"{}", "application/json")
    case("route/unknown-trailing-slash", "GET", "/api/v1/nope/")
    case("route/get-own-file", "GET", own_url())
    case("route/post-own-file", "POST", own_url())
    case("route/put-own-file", "PUT", own_url())
    case("route/patch-notify", "PATCH", NOTIFY, b"{}", "application/json")
    case("route/delete-notify", "DELETE", NOTIFY)
    case("route/patch-own-file-trailing-slash", "PATCH", own_url() + "/", b"{}", "application/json")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def send(port: int, request: dict) -> dict:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.putrequest(request["method"], request["path"], skip_accept_encoding=True)
    for name, value in request["headers"]:
        connection.putheader(name, value)
    if request["user"] is not None:
        connection.putheader("authorization", f"Bearer user-{request['user']}")
    body = base64.b64decode(request["body"])
    connection.putheader("content-length", str(len(body)))
    connection.endheaders(body)
    response = connection.getresponse()
    raw = response.read()
    connection.close()
    # The body as sent, so the replay compares numbers digit for digit.
    answer: dict = {"status": response.status, "body": raw.decode("utf-8", "replace")}
    location = response.getheader("location")
    if location is not None:
        answer["location"] = location
    return answer


def main() -> None:
    notify_cases()
    put_cases()
    token_cases()
    upload_cases()
    patch_cases()
    route_cases()
    delete_cases()
    ids = [c["id"] for c in CASES]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        sys.exit(f"duplicate case ids: {sorted(duplicates)}")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app:app", "--port", str(port), "--log-level", "warning"],
        cwd=HERE / "reference",
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        for c in CASES:
            c["response"] = send(port, c["request"])
    finally:
        server.terminate()
        server.wait()
    recorded = {
        "reference": {
            "python": sys.version.split()[0],
            "fastapi": fastapi.__version__,
            "pydantic": pydantic.VERSION,
            "starlette": starlette.__version__,
            "python-multipart": python_multipart.__version__,
        },
        "cases": CASES,
    }
    (HERE / "recorded.json").write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    print(f"recorded {len(CASES)} cases")


if __name__ == "__main__":
    main()
