"""The contract's service as FastAPI would serve it: the oracle the parity suite records.

Written from the interface (shared/spec in the steering repo; docs/fastapi-parity.md), with
our own limits and answers where the contract leaves them open (list bounds, string lengths,
the 404 and 403 bodies, the 202 body), stated with Pydantic's and FastAPI's own means so the
recording judges the shape of every refusal. Ids are plain `int`: any size.

Auth is API Gateway's job, not FastAPI's: a bearer `user-<N>` names user N here, and the
replay sends a real token for N instead.

State is the fixture in FIXTURE below; the replay seeds the local stage with the same.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from enum import Enum
from typing import Annotated, Optional

from fastapi import Depends, FastAPI, File, Form, Header, HTTPException, Response, UploadFile
from pydantic import BaseModel, Field

app = FastAPI()

ROOM_ID_PATTERN = r"^[a-z][a-z0-9-]{0,31}:v1:group:[1-9][0-9]{0,15}:deal:[1-9][0-9]{0,15}$"
ENVIRONMENT = "local"
EDITORS_ONLY = "Only editors of this group may change its deal files"


class FileType(str, Enum):
    deck = "deck"
    financials = "financials"
    raw_data = "raw_data"
    snapshot = "snapshot"
    full = "full"
    mini = "mini"
    nano = "nano"
    other = "other"


def deal_file(group_id: int, deal_id: int, file_id: int) -> dict:
    # As test/support/deal-fixtures.ts seeds one: created 2026-06-01T09:00:00Z + id seconds.
    return {
        "group_id": group_id,
        "name": f"deal {deal_id} file {file_id}.pdf",
        "id": file_id,
        "deal_id": deal_id,
        "type": "deck",
        "created_at": f"2026-06-01T09:00:{file_id:02d}.000Z",
        "updated_at": None,
        "is_archived": False,
    }


FIXTURE = {
    # user id -> file ids they own
    "user_files": {1: [101, 102], 2: [201]},
    # group id -> {user id: role}
    "members": {1: {1: "editor", 2: "viewer"}, 2: {3: "editor"}},
    # (group, deal) -> deal file ids
    "deals": {(1, 1): [11], (1, 2): [12], (2, 3): [13]},
}
USER_FILES = {uid: set(ids) for uid, ids in FIXTURE["user_files"].items()}


def user_file(user: int, file_id: int) -> dict:
    # As test/oracle/replay.test.ts seeds one (its bucket's name differs: location is volatile).
    return {
        "name": f"file {file_id}.pdf",
        "id": file_id,
        "user_id": user,
        "type": "deck",
        "created_at": "2026-06-01T09:00:00.000Z",
        "updated_at": None,
        "is_archived": False,
        "filesize": 5,
        "location": f"s3://bucket/users/{user}/files/{file_id}",
    }


USER_FILE_RECORDS = {
    (uid, i): user_file(uid, i) for uid, ids in FIXTURE["user_files"].items() for i in ids
}
DEAL_FILES = {
    (g, d, f): deal_file(g, d, f) for (g, d), ids in FIXTURE["deals"].items() for f in ids
}
NEXT_ID = [1000]


def user_id(authorization: Annotated[str, Header()]) -> int:
    return int(authorization.removeprefix("Bearer user-"))


User = Annotated[int, Depends(user_id)]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class NotifySubmissionRequest(BaseModel):
    file_ids: list[int] = Field(min_length=1, max_length=100)
    fund_name: Optional[str] = Field(default=None, max_length=200)
    message: Optional[str] = Field(default=None, max_length=2000)


class DealFileUpdate(BaseModel):
    type: Optional[FileType] = None


class UserFileUpdate(BaseModel):
    # Absent leaves a field as it is; null is neither a boolean nor a name, so it is refused
    # (Pydantic does not validate a default, and these are not Optional).
    is_archived: bool = None  # type: ignore[assignment]
    name: str = Field(default=None, min_length=1, max_length=255)  # type: ignore[assignment]


class RealtimeTokenRequest(BaseModel):
    room_ids: list[Annotated[str, Field(pattern=ROOM_ID_PATTERN)]] = Field(max_length=50)


@app.get("/api/v1/user/me/file")
def list_user_files(user: User):
    return [{"id": i, "user_id": user} for i in sorted(USER_FILES.get(user, set()))]


@app.post("/api/v1/user/me/file", status_code=201)
async def upload_user_file(
    user: User,
    file: Annotated[UploadFile, File()],
    name: Annotated[str, Form(min_length=1, max_length=255)],
    type: Annotated[FileType, Form()],
):
    content = await file.read()
    NEXT_ID[0] += 1
    file_id = NEXT_ID[0]
    USER_FILES.setdefault(user, set()).add(file_id)
    return {
        "name": name,
        "id": file_id,
        "user_id": user,
        "type": type.value,
        "created_at": now(),
        "updated_at": None,
        "is_archived": False,
        "filesize": len(content),
        "location": f"s3://bucket/users/{user}/files/{file_id}",
    }


@app.patch("/api/v1/user/me/file/{file_id}")
def update_user_file(user: User, file_id: int, body: UserFileUpdate):
    record = USER_FILE_RECORDS.get((user, file_id))
    if record is None:
        raise HTTPException(404, "Not Found")
    changes = {field: getattr(body, field) for field in body.model_fields_set}
    if any(record[field] != value for field, value in changes.items()):
        record.update(changes)
        record["updated_at"] = now()
    return record


@app.delete("/api/v1/user/me/file/{file_id}", status_code=204)
def delete_user_file(user: User, file_id: int):
    if USER_FILE_RECORDS.pop((user, file_id), None) is None:
        raise HTTPException(404, "Not Found")
    USER_FILES[user].discard(file_id)
    return Response(status_code=204)


@app.post("/api/v1/user/me/file/notify", status_code=202)
def notify_submission(user: User, body: NotifySubmissionRequest):
    ids = list(dict.fromkeys(body.file_ids))
    missing = [i for i in ids if i not in USER_FILES.get(user, set())]
    if missing:
        word = "File" if len(missing) == 1 else "Files"
        raise HTTPException(404, f"{word} not found: {', '.join(str(i) for i in missing)}")
    return {"notification_id": str(uuid.uuid4()), "status": "queued", "file_count": len(ids)}


@app.put("/api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}")
def update_deal_file(
    user: User, group_id: int, deal_id: int, file_id: int, body: DealFileUpdate
):
    role = FIXTURE["members"].get(group_id, {}).get(user)
    record = DEAL_FILES.get((group_id, deal_id, file_id))
    if role is None or record is None:
        raise HTTPException(404, "Not Found")
    if role != "editor":
        raise HTTPException(403, EDITORS_ONLY)
    if "type" in body.model_fields_set:
        new_type = None if body.type is None else body.type.value
        if new_type != record["type"]:
            record["type"] = new_type
            record["updated_at"] = now()
    return {k: v for k, v in record.items() if k != "group_id"}


@app.post("/api/v1/auth/get-realtime-token")
def get_realtime_token(user: User, body: RealtimeTokenRequest):
    for room_id in dict.fromkeys(body.room_ids):
        environment, _, _, group, _, deal = room_id.split(":")
        group_id, deal_id = int(group), int(deal)
        if (
            environment != ENVIRONMENT
            or user not in FIXTURE["members"].get(group_id, {})
            or (group_id, deal_id) not in FIXTURE["deals"]
            or group_id >= 2**53
            or deal_id >= 2**53
        ):
            raise HTTPException(404, "Not Found")
    return {"token": f"token-for-{user}"}
