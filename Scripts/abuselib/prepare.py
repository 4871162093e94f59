"""What the connections need, made before they start: an application, a device with about 1 MiB of
tags, a small device, and a CreateMessage request of about 3.7 MB."""

import os
import re

from .common import ROOT, log
from .wire import Client, f_bytes, f_varint, parse


def language_codes():
    text = open(os.path.join(ROOT, "Sources", "PushwireService", "LanguageCodes.swift")).read()
    return re.findall(r'"([a-z]{2})"', text.split("static let all", 1)[1].split("]", 1)[0])


def prepare(address, data_dir):
    """Application, devices, tags and the heavy request; returns what the connections need."""
    admin = open(os.path.join(data_dir, "admin-token")).read().strip()
    client = Client(address)
    code, message, body = client.call("/pushwire.v1.Admin/CreateApplication", f_bytes(1, "abuse"),
                                      [("authorization", f"Bearer {admin}")])
    assert code == 0, message
    created = parse(body)
    application = parse(created[1][0])[1][0].decode()
    token = created[2][0].decode()
    for hwid in ["abuse-tags", "abuse-small"]:
        code, message, _ = client.call("/pushwire.v1.Devices/RegisterDevice",
                                       f_bytes(1, application) + f_bytes(2, hwid) + f_bytes(3, "a" * 64)
                                       + f_varint(4, 1) + f_bytes(5, "en"))
        assert code == 0, message
    # About 1 MiB of tags, in SetTags calls of 64 updates of 250 bytes, or as much as the server
    # accepts (a limit on tags per device stops it sooner).
    tag_bytes = 0
    for batch in range(64):
        updates = b"".join(f_bytes(3, f_bytes(1, f"t{batch:02d}{i:03d}") + f_bytes(2, f_bytes(1, "v" * 250))) for i in range(64))
        code, message, _ = client.call("/pushwire.v1.Devices/SetTags",
                                       f_bytes(1, application) + f_bytes(2, "abuse-tags") + updates)
        if code != 0:
            log(f"SetTags refused after {tag_bytes} B of tags ({code}: {message[:120]})")
            break
        tag_bytes += 64 * 250
    code, message, body = client.call("/pushwire.v1.Devices/GetTags", f_bytes(1, application) + f_bytes(2, "abuse-tags"))
    assert code == 0, message
    get_tags_answer = len(body)
    # 100 notifications × 185 languages, or as many languages as the server accepts.
    languages = language_codes()
    heavy = None
    while languages:
        notifications = b""
        for n in range(100):
            localized = b"".join(f_bytes(3, f_bytes(1, lang) + f_bytes(2, f"{lang} {n} " + "w" * 180)) for lang in languages)
            targeting = f_bytes(1, "abuse-small")
            notifications += f_bytes(1, f_bytes(2, f"message {n} " + "w" * 180) + localized + f_bytes(15, targeting))
        code, message, _ = client.call("/pushwire.v1.Messages/CreateMessage", notifications,
                                       [("authorization", f"Bearer {token}")])
        if code == 0:
            heavy = notifications
            break
        log(f"CreateMessage in {len(languages)} languages refused ({code}: {message[:120]}); trying fewer")
        languages = languages[: len(languages) // 2]
    client.sock.close()
    return {"application": application, "token": token, "tag_bytes": tag_bytes, "get_tags_answer": get_tags_answer,
            "heavy": heavy, "heavy_languages": len(languages)}
