"""A client for the file service, with Python's standard library only (Python 3.9+).

Every route of the contract (list and upload your files, notify a submission, update a deal
file, get a realtime token) and the extensions a client needs for files of any size: the
direct upload (start, POST the signed form to S3, complete), the download (its bytes checked
against the SHA-256 the service recorded) and your usage against your storage quota.

    client = FileServiceClient("http://localhost:8000", token)
    uploaded = client.upload("deck.pdf", file_type="deck")   # any size up to 50 MiB
    client.notify([uploaded["id"]], fund_name="Acme Growth Fund III")

The access trail: a deal room's, for its editors, and what a file's owner may know of theirs.

    for entry in client.deal_access(7, 3, action="deal_file.download"):  # every page
        print(entry["at"], entry["user_id"], entry["file_id"])

Run it as a script to call each route once and print a line for each:

    python3 file_service_client.py BASE_URL TOKEN [FILE ...] [--deal-file GROUP/DEAL/FILE]
                                   [--room ROOM_ID] [--deal-access GROUP/DEAL]

BASE_URL and TOKEN may come from FILE_SERVICE_URL and FILE_SERVICE_TOKEN instead.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import mimetypes
import os
import sys
import time
import re
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

#: Multipart uploads take files up to 4.7 MB (4,700,000 bytes) on every stage; larger files take
#: the direct upload. The limit is the platform's, not the service's: Lambda takes at most
#: 6 MiB of event, and API Gateway puts the form in it base64-encoded (4 bytes for every 3)
#: beside the request's headers and token claims.
MULTIPART_LIMIT = 4_700_000

#: Calls of complete, a second apart, while another completion holds the upload (409).
COMPLETE_ATTEMPTS = 5

#: The header that names a file's SHA-256 on its GET and on its download's 302.
DIGEST_HEADER = "x-checksum-sha256"

Json = Any
FileSource = Union[str, os.PathLike, bytes]


class FileServiceError(Exception):
    """A refusal: the HTTP status and the body as sent (FastAPI's `{"detail": ...}`, API
    Gateway's `{"message": ...}`, or S3's XML for the direct upload's form)."""

    def __init__(self, method: str, url: str, status: int, body: Json) -> None:
        super().__init__(f"{method} {url}: {status} {json.dumps(body) if body else ''}".strip())
        self.status = status
        self.body = body

    @property
    def detail(self) -> Json:
        """FastAPI's `detail`: a string, or the list of validation errors of a 422."""
        return self.body.get("detail") if isinstance(self.body, dict) else None


class QuotaExceeded(FileServiceError):
    """A 403 over your storage quota: `detail` names the limit, what is in use and what was
    asked (`usage()` shows where you stand). Nothing was stored."""


class ChecksumMismatch(Exception):
    """Downloaded bytes whose SHA-256 is not the one the service recorded: never use them."""


def sha256_of(content: bytes) -> str:
    """A SHA-256 as the service writes one (and S3's `x-amz-checksum-sha256`): base64 of the
    32 bytes."""
    return base64.b64encode(hashlib.sha256(content).digest()).decode()


def _refusal(method: str, url: str, status: int, body: Json) -> FileServiceError:
    """The error for a refusal. A 403 also answers an erased account: the detail tells the
    quota's refusal apart."""
    detail = body.get("detail") if isinstance(body, dict) else None
    if status == 403 and isinstance(detail, str) and detail.startswith("Storage quota"):
        return QuotaExceeded(method, url, status, body)
    return FileServiceError(method, url, status, body)


class _KeepRedirects(urllib.request.HTTPRedirectHandler):
    """Hands a redirect back instead of following it. urllib would send the bearer token on
    to the download link's host, and S3 refuses a presigned URL that also carries one."""

    def redirect_request(
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> None:
        return None


class FileServiceClient:
    """The file service's routes, each one method; every refusal raises FileServiceError."""

    def __init__(self, base_url: str, token: str, timeout: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self._opener = urllib.request.build_opener(_KeepRedirects)

    # The contract's routes

    def list_files(self) -> List[Json]:
        """GET /api/v1/user/me/file: every file the caller owns, newest first."""
        return self._call("GET", "/api/v1/user/me/file")

    def upload_multipart(
        self, content: bytes, filename: str, name: str, file_type: str, content_type: str
    ) -> Json:
        """POST /api/v1/user/me/file: one multipart request, for files up to MULTIPART_LIMIT."""
        body, form_type = _multipart(
            [("name", name), ("type", file_type)], ("file", filename, content_type, content)
        )
        return self._call("POST", "/api/v1/user/me/file", body, form_type)

    def notify(
        self,
        file_ids: Sequence[int],
        fund_name: Optional[str] = None,
        message: Optional[str] = None,
    ) -> Json:
        """POST /api/v1/user/me/file/notify: one chat message for a finished submission."""
        request = {"file_ids": list(file_ids), "fund_name": fund_name, "message": message}
        return self._call_json("POST", "/api/v1/user/me/file/notify", request)

    def update_deal_file(
        self, group_id: int, deal_id: int, file_id: int, file_type: Optional[str]
    ) -> Json:
        """PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}: set (or clear) its type."""
        path = f"/api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}"
        return self._call_json("PUT", path, {"type": file_type})

    def realtime_token(self, room_ids: Sequence[str] = ()) -> str:
        """POST /api/v1/auth/get-realtime-token: a token for these rooms; none, a general one."""
        request = {"room_ids": list(room_ids)}
        return self._call_json("POST", "/api/v1/auth/get-realtime-token", request)["token"]

    # The extensions a client needs for files of any size

    def usage(self) -> Json:
        """GET /api/v1/user/me/usage: what your files and pending direct uploads hold, and your
        limits, in files and in bytes."""
        return self._call("GET", "/api/v1/user/me/usage")

    def start_direct_upload(
        self,
        name: str,
        file_type: str,
        filesize: int,
        content_type: str,
        sha256: Optional[str] = None,
    ) -> Json:
        """POST /api/v1/user/me/file/upload: a signed S3 form for one file, for 15 minutes.
        With the bytes' sha256, S3 and the completion refuse any other bytes."""
        request = {
            "name": name,
            "type": file_type,
            "filesize": filesize,
            "content_type": content_type,
            "sha256": sha256,
        }
        return self._call_json("POST", "/api/v1/user/me/file/upload", request)

    def post_to_storage(self, ticket: Json, content: bytes, filename: str) -> None:
        """POST the signed form to S3: every field in the order given, the file last. S3
        answers 204; the bearer token is not sent, as the form's signature is the credential."""
        fields: Dict[str, str] = ticket["fields"]
        content_type = fields.get("Content-Type", "application/octet-stream")
        file = ("file", filename, content_type, content)
        body, form_type = _multipart(list(fields.items()), file)
        self._send("POST", ticket["url"], body, {"Content-Type": form_type})

    def complete_direct_upload(self, upload_id: int) -> Json:
        """POST /api/v1/user/me/file/upload/{id}/complete: the UserFile the upload became."""
        return self._call("POST", f"/api/v1/user/me/file/upload/{upload_id}/complete")

    def download(self, file_id: int, wait_seconds: float = 60) -> bytes:
        """GET /api/v1/user/me/file/{id}/download, then its 5-minute link, without the token.
        While the malware scan holds a new file the route answers 409 with Retry-After: this
        waits as told, up to wait_seconds in all (a 409 without Retry-After waits for an
        operator, so it is raised at once, as is a 403 for malware found). Bytes whose SHA-256
        is not the one the 302 names raise ChecksumMismatch (a file stored before digests were
        kept has none)."""
        path = f"/api/v1/user/me/file/{file_id}/download"
        deadline = time.monotonic() + wait_seconds
        while True:
            status, headers, body = self._send(
                "GET", self._url(path), None, self._auth(), answered=(302, 409)
            )
            retry_after = headers.get("Retry-After")
            if status != 409 or retry_after is None or time.monotonic() >= deadline:
                break
            time.sleep(min(float(retry_after), max(0.0, deadline - time.monotonic())))
        location = headers.get("Location")
        if status != 302 or location is None:
            raise _refusal("GET", path, status, _parsed(body))
        content = self._send("GET", location, None, {})[2]
        recorded = headers.get(DIGEST_HEADER)
        if recorded is not None and recorded != sha256_of(content):
            raise ChecksumMismatch(
                f"download: file {file_id}: the bytes' SHA-256 is {sha256_of(content)},"
                f" not {recorded}"
            )
        return content

    # The access trail

    def deal_access(
        self,
        group_id: int,
        deal_id: int,
        file_id: Optional[int] = None,
        user_id: Optional[int] = None,
        action: Optional[str] = None,
        since: Optional[str] = None,
        until: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> Iterator[Json]:
        """GET /api/v1/group/{group_id}/deal/{deal_id}/access: the deal's entries, newest first,
        for the group's editors (anyone else: 404), each page's link followed to the end. A page
        may come back short, even empty, while its link goes on. `since` and `until` are ISO 8601
        with a time zone (`2026-06-01T00:00:00Z`), or a date."""
        query = {
            "file_id": file_id,
            "user_id": user_id,
            "action": action,
            "since": since,
            "until": until,
            "limit": limit,
        }
        path = f"/api/v1/group/{group_id}/deal/{deal_id}/access"
        return self._pages(path, query, lambda page: page)

    def file_access(self, file_id: int) -> Json:
        """GET /api/v1/user/me/file/{file_id}/access: your own entries about your file (every
        page) and each deal room holding a copy, counted: `downloads`, `members`, `first_at`,
        `last_at`, never who."""
        path = f"/api/v1/user/me/file/{file_id}/access"
        rooms: List[Json] = []

        def entries_of(page: Json) -> List[Json]:
            rooms[:] = page["deal_rooms"]
            return page["entries"]

        entries = list(self._pages(path, {}, entries_of))
        return {"entries": entries, "deal_rooms": rooms}

    def _pages(
        self, path: str, query: Dict[str, Any], items: Callable[[Json], List[Json]]
    ) -> Iterator[Json]:
        """Each page's items from `path` on, following `Link: <…>; rel="next"` until a page
        comes without one."""
        given = urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        url: Optional[str] = self._url(f"{path}?{given}" if given else path)
        while url is not None:
            _, headers, body = self._send("GET", url, None, self._auth())
            yield from items(json.loads(body))
            link = re.match(r'^<([^>]+)>; rel="next"$', headers.get("Link") or "")
            url = urllib.parse.urljoin(url, link.group(1)) if link else None

    # Any size

    def upload(
        self,
        source: FileSource,
        name: Optional[str] = None,
        file_type: str = "other",
        content_type: Optional[str] = None,
    ) -> Json:
        """Upload a path's file or bytes of any size up to 50 MiB, and answer its UserFile:
        multipart up to MULTIPART_LIMIT, the direct upload above it (declaring the bytes'
        SHA-256). Over your storage quota it raises QuotaExceeded."""
        if isinstance(source, bytes):
            content, filename = source, name or "upload.bin"
        else:
            content, filename = Path(source).read_bytes(), Path(source).name
        name = name or filename
        content_type = (
            content_type or mimetypes.guess_type(filename)[0] or "application/octet-stream"
        )
        if len(content) <= MULTIPART_LIMIT:
            return self.upload_multipart(content, filename, name, file_type, content_type)
        ticket = self.start_direct_upload(
            name, file_type, len(content), content_type, sha256_of(content)
        )
        self.post_to_storage(ticket, content, filename)
        # S3's event completes the upload too; while it holds the upload, complete answers
        # 409 "try again", and the next call answers the same file.
        attempt = 1
        while True:
            try:
                return self.complete_direct_upload(ticket["id"])
            except FileServiceError as refused:
                if refused.status != 409 or attempt == COMPLETE_ATTEMPTS:
                    raise
            attempt += 1
            time.sleep(1)

    # HTTP

    def _url(self, path: str) -> str:
        return self.base_url + path

    def _auth(self) -> Dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def _call_json(self, method: str, path: str, request: Json) -> Json:
        return self._call(method, path, json.dumps(request).encode(), "application/json")

    def _call(
        self,
        method: str,
        path: str,
        body: Optional[bytes] = None,
        content_type: Optional[str] = None,
    ) -> Json:
        headers = self._auth()
        if content_type is not None:
            headers["Content-Type"] = content_type
        answer = self._send(method, self._url(path), body, headers)[2]
        return json.loads(answer) if answer else None

    def _send(
        self,
        method: str,
        url: str,
        body: Optional[bytes],
        headers: Dict[str, str],
        answered: Tuple[int, ...] = (301, 302, 303, 307, 308),
    ) -> Tuple[int, Any, bytes]:
        """The answer; a refusal raises FileServiceError unless `answered` names its status."""
        request = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with self._opener.open(request, timeout=self.timeout) as answer:
                return answer.status, answer.headers, answer.read()
        except urllib.error.HTTPError as refused:
            if refused.code in answered:
                return refused.code, refused.headers, refused.read()
            raise _refusal(method, url, refused.code, _parsed(refused.read())) from None


def _parsed(body: bytes) -> Json:
    """A refusal's body: JSON when it is, else its text (S3's XML)."""
    try:
        return json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace")


def _multipart(
    fields: Sequence[Tuple[str, str]], file: Tuple[str, str, str, bytes]
) -> Tuple[bytes, str]:
    """A multipart/form-data body: the fields in order, then the file part."""
    boundary = uuid.uuid4().hex
    parts: List[bytes] = []
    for field, value in fields:
        disposition = f'form-data; name="{field}"'
        parts.append(f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode())
        parts.append(value.encode() + b"\r\n")
    field, filename, content_type, content = file
    # A quote or line break would end the header: percent-encode them, as browsers do.
    quoted = filename.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{quoted}"\r\n'
        f"Content-Type: {content_type}\r\n\r\n".encode()
    )
    parts.append(content + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def _demo(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description="Call each route of the file service once.")
    parser.add_argument("base_url", nargs="?", default=os.environ.get("FILE_SERVICE_URL"))
    parser.add_argument("token", nargs="?", default=os.environ.get("FILE_SERVICE_TOKEN"))
    parser.add_argument("files", nargs="*", help="files to upload (default: a few bytes)")
    parser.add_argument("--deal-file", help="GROUP/DEAL/FILE: a deal file to set the type of")
    parser.add_argument("--room", action="append", default=[], help="a room id for the token")
    parser.add_argument("--deal-access", help="GROUP/DEAL: a deal whose trail to read (editors)")
    args = parser.parse_args(argv)
    if not args.base_url or not args.token:
        parser.error("give BASE_URL and TOKEN, or set FILE_SERVICE_URL and FILE_SERVICE_TOKEN")
    client = FileServiceClient(args.base_url, args.token)

    sources: List[FileSource] = list(args.files) or [b"Q3 deck, version 1\n"]
    uploaded = []
    for source in sources:
        content = source if isinstance(source, bytes) else Path(source).read_bytes()
        path = "multipart" if len(content) <= MULTIPART_LIMIT else "direct"
        record = client.upload(source, file_type="deck")
        uploaded.append((record, content))
        size = record["filesize"]
        print(f"upload: {record['name']} is file {record['id']}, {size} bytes ({path})")
    print(f"list: {len(client.list_files())} files")
    usage = client.usage()
    held = "; ".join(
        f"{unit} {usage[unit]['used']} used, {usage[unit]['reserved']} reserved,"
        f" {usage[unit]['allowed']} allowed"
        for unit in ("files", "bytes")
    )
    print(f"usage: {held}")
    for record, content in uploaded:
        # The client checks the copy against the SHA-256 the service recorded, and raises if not.
        copy = client.download(record["id"])
        same = "the same bytes" if copy == content else "OTHER BYTES"
        print(f"download: file {record['id']}, {same}, SHA-256 {sha256_of(copy)}")
    accepted = client.notify([record["id"] for record, _ in uploaded], fund_name="Example Fund")
    print(f"notify: {accepted['status']}, {accepted['file_count']} files")
    if args.deal_file:
        group_id, deal_id, file_id = (int(part) for part in args.deal_file.split("/"))
        deal_file = client.update_deal_file(group_id, deal_id, file_id, "financials")
        print(
            f"update deal file: file {deal_file['id']} of deal {deal_file['deal_id']}"
            f" is {deal_file['type']}"
        )
    token = client.realtime_token(args.room)
    print(f"realtime token: {len(args.room)} rooms, {len(token)} characters")
    if args.deal_access:
        group_id, deal_id = (int(part) for part in args.deal_access.split("/"))
        entries = list(client.deal_access(group_id, deal_id))
        newest = f", the newest {entries[0]['action']}" if entries else ""
        print(f"deal access: {len(entries)} entries{newest}")


if __name__ == "__main__":
    try:
        _demo(sys.argv[1:])
    except QuotaExceeded as over:
        sys.exit(f"over quota: {over.detail}")
    except FileServiceError as refused:
        sys.exit(f"refused: {refused}")
