#!/usr/bin/env python3
"""Restores optional platform packages that `npm install` leaves out of package-lock.json.

The npm registry mirror on these machines lacks some platform builds (workerd for macOS and
Windows), so `npm install` records their parents' optionalDependencies without entries, and
`npm ci` then refuses the lock as out of sync. This adds a minimal entry (version, os, cpu,
optional) for each missing one; npm never installs them on Linux. Run after `npm install`.
"""
import json

PATH = "package-lock.json"
lock = json.load(open(PATH))
packages = lock["packages"]
added = []
for meta in list(packages.values()):
    for dep, version in (meta.get("optionalDependencies") or {}).items():
        key = "node_modules/" + dep
        if key in packages:
            continue
        platform = dep.split("/")[-1]
        entry = {"version": version, "dev": True, "optional": True}
        cpu = "arm64" if "arm64" in platform else "x64" if "64" in platform else None
        system = ("darwin" if "darwin" in platform else "win32" if "win" in platform
                  else "linux" if "linux" in platform else None)
        if cpu:
            entry["cpu"] = [cpu]
        if system:
            entry["os"] = [system]
        packages[key] = entry
        added.append(key)
lock["packages"] = dict(sorted(packages.items(), key=lambda kv: (kv[0] != "", kv[0])))
with open(PATH, "w") as f:
    json.dump(lock, f, indent=2)
    f.write("\n")
print("added:", ", ".join(added) if added else "nothing")
