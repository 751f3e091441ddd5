#!/usr/bin/env python3
"""Writes a synthetic corpus of N systems for the scale bench (`make bench-scale`); never shipped.

    corpus-synth.py SOURCE_DIR OUT_DIR N

The first systems are the real ones of SOURCE_DIR in slugs.txt order (all of them, or the first
N when N is smaller, with the grounding cues and cross-references that name a left-out system
dropped). Past them, round r = 1, 2, ... copies every real system again under a new slug
(`syn<r>-<slug>`), renamed and perturbed so the copies are not duplicates a compressor or an
index could fold away:

- the names, abbreviations and synonyms get a made-up word of the round;
- in every clinical line, one long word is replaced by a made-up word (new index terms, as new
  systems bring);
- cross-references and version links point to the same round's copies (dropped when the round
  is cut short before them); `currency.added` is dropped, so the changes feed is not one
  announcement per copy.

The logic (inputs, decision units, examples, outcomes) is kept as it is, so the build checks
every copy's examples like a real system's. Output is deterministic for a given SOURCE_DIR and N.
"""
import copy
import hashlib
import json
import os
import re
import shutil
import sys

SYLLABLES = ["ka", "lo", "mi", "ru", "ten", "var", "qo", "zel", "dri", "pha", "mon", "sku",
             "bre", "ti", "nax", "oro", "vel", "ju", "cre", "dos"]
LONG_WORD = re.compile(r"\b[a-z]{7,}\b")


def made_up(seed):
    """A pronounceable word chosen by a hash of `seed` (three or four syllables)."""
    h = hashlib.sha256(seed.encode()).digest()
    n = 3 + h[0] % 2
    return "".join(SYLLABLES[b % len(SYLLABLES)] for b in h[1:1 + n])


def perturb_lines(value, rnd, slug):
    """Replaces one long word in every `text` of a line with a made-up word of the round."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "text" and isinstance(v, str) and "citation" in value:
                m = LONG_WORD.search(v)
                if m:
                    word = made_up(f"{rnd}:{slug}:{m.group(0)}")
                    v = v[:m.start()] + word + v[m.end():]
            else:
                v = perturb_lines(v, rnd, slug)
            out[k] = v
        return out
    if isinstance(value, list):
        return [perturb_lines(v, rnd, slug) for v in value]
    return value


def copy_system(system, rnd, present):
    """The round-`rnd` copy of a real system; `present` holds the real slugs this round has."""
    slug = system["slug"]
    word = made_up(f"{rnd}:{slug}").capitalize()
    s = perturb_lines(copy.deepcopy(system), rnd, slug)
    s["slug"] = f"syn{rnd}-{slug}"
    s["name"] = f"{word} {system['name']}"
    s["short_name"] = f"{word} {system['short_name']}"
    s["abbreviations"] = [f"{word}-{a}" for a in system.get("abbreviations", [])]
    s["synonyms"] = [f"{word} {a}" for a in system.get("synonyms", [])]
    cur = s["currency"]
    cur.pop("added", None)
    for key in ("supersedes", "superseded_by"):
        cur[key] = [f"syn{rnd}-{x}" for x in cur.get(key, []) if x in present]
    s["crossrefs"] = [dict(c, slug=f"syn{rnd}-{c['slug']}") for c in s.get("crossrefs", [])
                      if c["slug"] in present]
    return s


def trim_real(system, present):
    """A real system in a corpus that leaves some of the others out."""
    s = copy.deepcopy(system)
    cur = s["currency"]
    for key in ("supersedes", "superseded_by"):
        cur[key] = [x for x in cur.get(key, []) if x in present]
    s["crossrefs"] = [c for c in s.get("crossrefs", []) if c["slug"] in present]
    return s


def trim_cues(cues, present):
    """Drops cue effects (and cues left with none) that name a system not in the corpus."""
    kept = []
    for cue in cues["cues"]:
        effects = []
        for e in cue["effects"]:
            named = [e.get("system"), e.get("lineage"), e.get("basis", {}).get("system")]
            if all(n is None or n in present for n in named):
                effects.append(e)
        if effects:
            kept.append(dict(cue, effects=effects))
    return dict(cues, cues=kept)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    slugs = [s.strip() for s in open(os.path.join(src, "slugs.txt")) if s.strip()
             and not s.startswith("#")]
    systems = {}
    for slug in slugs:
        with open(os.path.join(src, "systems", f"{slug}.json")) as f:
            systems[slug] = json.load(f)
    real = slugs[:n]
    present = set(real)
    written = [trim_real(systems[s], present) for s in real]
    rnd = 0
    while len(written) < n:
        rnd += 1
        round_slugs = slugs[:n - len(written)]
        here = set(round_slugs)
        written.extend(copy_system(systems[s], rnd, here) for s in round_slugs)

    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(os.path.join(out, "systems"))
    shutil.copytree(os.path.join(src, "grounding"), os.path.join(out, "grounding"))
    shutil.copy(os.path.join(src, "coverage.json"), out)
    if len(real) < len(slugs):
        path = os.path.join(out, "grounding", "cues.json")
        with open(path) as f:
            cues = json.load(f)
        with open(path, "w") as f:
            json.dump(trim_cues(cues, present), f, indent=1)
        # Organ words of an organ no kept system names are refused by the build.
        organs = {o for s in written for o in s["organs"]}
        path = os.path.join(out, "grounding", "lexicon.json")
        with open(path) as f:
            lexicon = json.load(f)
        lexicon["organs"] = [o for o in lexicon["organs"] if o["organ"] in organs]
        with open(path, "w") as f:
            json.dump(lexicon, f, indent=1, ensure_ascii=False)
    for s in written:
        with open(os.path.join(out, "systems", f"{s['slug']}.json"), "w") as f:
            json.dump(s, f, indent=1, ensure_ascii=False)
    with open(os.path.join(out, "slugs.txt"), "w") as f:
        f.write("".join(f"{s['slug']}\n" for s in written))
    print(f"corpus-synth: {len(written)} systems ({len(real)} real, {len(written) - len(real)} "
          f"synthetic in {rnd} round(s)) in {out}")


if __name__ == "__main__":
    main()
