"""MRRT export and import read by parsers that are not ours: html5lib (the WHATWG HTML parsing
algorithm, as browsers apply it) and the Python standard library's XML parser.

Imports tests/fixtures/mrrt/thyroid-us.html and a template written as JSON, exports each with
Accept: text/html, and checks the document an MRRT consumer reads: one <head> with <title>
first, one <meta charset>, Dublin Core metadata including dcterms.title, exactly one
<script type="text/xml"> whose text is a template_attributes XML element with one coded_content;
every coded_content ORIGTXT names an element id of the body; sections carry
data-section-name; every field has an id. The whole export is also well-formed XML (XHTML).
Then the export is imported back and must give the same template.

Usage: python tests/contract/check_mrrt.py BASE_URL
"""

import json
import pathlib
import sys
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

import html5lib

BASE = sys.argv[1]
KEY = "rr_mrrtchk1_mrrtContractCheckKeyNumber001"
FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "mrrt" / "thyroid-us.html"
XHTML = "{http://www.w3.org/1999/xhtml}"


def call(method, path, body=None, content_type=None, accept=None):
    request = urllib.request.Request(BASE + path, data=body, method=method)
    request.add_header("cf-connecting-ip", "198.51.100.160")
    request.add_header("authorization", f"Bearer {KEY}")
    if content_type:
        request.add_header("content-type", content_type)
    if accept:
        request.add_header("accept", accept)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


def created(reply):
    status, _, body = reply
    assert status == 201, (status, body)
    return json.loads(body)["data"]


def check_structure(document, template):
    tree = html5lib.parse(document)  # namespaced HTML elements
    heads = tree.findall(f"{XHTML}head")
    bodies = tree.findall(f"{XHTML}body")
    assert len(heads) == 1 and len(bodies) == 1, "one head and one body"
    head, body = heads[0], bodies[0]
    assert head[0].tag == f"{XHTML}title", "title comes first in the head"
    assert head[0].text == template["name"], (head[0].text, template["name"])
    metas = head.findall(f"{XHTML}meta")
    assert sum(1 for m in metas if "charset" in m.attrib) == 1, "one meta charset"
    dc = {}
    for m in metas:
        if m.get("name", "").startswith("dcterms."):
            dc.setdefault(m.get("name"), []).append(m.get("content"))
    assert dc["dcterms.title"] == [template["name"]], dc
    assert dc["dcterms.type"] == ["IMAGE_REPORT_TEMPLATE"], dc
    for key in ("identifier", "date", "language"):
        assert dc[f"dcterms.{key}"] == [template["metadata"][key]], (key, dc)
    scripts = head.findall(f"{XHTML}script")
    assert len(scripts) == 1 and scripts[0].get("type") == "text/xml", "one XML script in the head"
    attributes = ET.fromstring(scripts[0].text)
    assert attributes.tag == "template_attributes", attributes.tag
    coded = attributes.findall("coded_content")
    assert len(coded) == 1, "one coded_content"
    ids = {e.get("id") for e in body.iter() if e.get("id")}
    entries = coded[0].findall("entry")
    assert len(entries) == len(template["coded_content"]), (len(entries), template["coded_content"])
    for entry in entries:
        assert entry.get("ORIGTXT") in ids, f"coded_content names {entry.get('ORIGTXT')}, not in the body"
        for term in entry.findall("term"):
            codes = term.findall("code")
            assert len(codes) == 1 and all(codes[0].get(a) for a in ("meaning", "value", "scheme"))
    schemes = {s.get("name") for s in attributes.iter("coding_scheme")}
    used = {c.get("scheme") for c in attributes.iter("code")}
    assert used <= schemes, f"schemes used but not declared: {used - schemes}"
    for section in body.iter(f"{XHTML}section"):
        assert section.get("data-section-name"), "every section is named"
    fields = [e for e in body.iter() if e.tag in (f"{XHTML}input", f"{XHTML}select", f"{XHTML}textarea")]
    assert len(fields) == len(template["fields"]), (len(fields), len(template["fields"]))
    for field in fields:
        assert field.get("id"), "every field has an id"
    assert not any(e.tag == f"{XHTML}script" for e in body.iter()), "no script in the body"
    # XHTML: an XML parser reads the whole document too.
    ET.fromstring(document.split("\n", 1)[1])


def essence(t):
    drop = {"id", "owned", "created_at", "updated_at", "usage_count", "last_used_at", "created_by",
            "voice_command", "voice_aliases", "is_favorite", "is_public"}
    return {k: v for k, v in t.items() if k not in drop}


stamp = str(time.time_ns())
fixture = FIXTURE.read_text().replace("US Thyroid: nodule characterisation (ACR TI-RADS)", f"US thyroid {stamp}")
imported = created(call("POST", "/api/v1/templates", fixture.encode(), "text/html"))
written = created(call("POST", "/api/v1/templates", json.dumps({
    "name": f"MR knee {stamp}", "modality": "MR", "tags": ["knee", "msk"],
    "content": "<section id=\"menisci\" data-section-name=\"Menisci\"><header>Menisci</header>"
               "<p><label for=\"mm\">Medial meniscus</label> <select id=\"mm\"><option selected>intact</option>"
               "<option>tear</option></select></p><p>Effusion: <input type=\"checkbox\" id=\"eff\"/></p></section>",
}).encode(), "application/json"))
for template in (imported, written):
    status, headers, document = call("GET", f"/api/v1/templates/{template['id']}", accept="text/html")
    assert status == 200 and headers["content-type"].startswith("text/html"), (status, headers)
    check_structure(document, template)
    back = created(call("POST", "/api/v1/templates", document.encode(), "text/html"))
    assert essence(back) == essence(template), json.dumps([essence(back), essence(template)], indent=1)
    print(f"MRRT export of '{template['name']}': structure checked by html5lib and ElementTree, "
          f"{len(template['fields'])} fields, {len(template['coded_content'])} coded entries; import gives the same template")
