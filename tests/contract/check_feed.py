"""Parses radref's RSS feed with feedparser (a standard feed parser) and checks it.

Usage: check_feed.py BASE_URL. Exits non-zero with a message on the first problem.
"""
import sys
import urllib.request

import feedparser


def main(base: str) -> None:
    url = f"{base}/feed/changes.xml"
    with urllib.request.urlopen(url, timeout=10) as response:
        content_type = response.headers.get("Content-Type", "")
        body = response.read()
    assert content_type.startswith("application/rss+xml"), content_type
    feed = feedparser.parse(body)
    assert not feed.bozo, f"feed is not well-formed: {feed.get('bozo_exception')}"
    assert feed.version == "rss20", feed.version
    assert feed.feed.get("title"), "channel title"
    assert feed.feed.get("link", "").startswith("http"), "channel link is absolute"
    self_links = [l for l in feed.feed.get("links", []) if l.get("rel") == "self"]
    assert self_links and self_links[0]["href"] == url, f"atom:link self {self_links}"
    assert feed.entries, "no items"
    guids = [e.get("id") for e in feed.entries]
    assert all(guids) and len(set(guids)) == len(guids), "guids present and unique"
    for e in feed.entries:
        assert e.get("published_parsed"), f"pubDate of {e.get('id')} is not RFC 822"
        assert e.get("link", "").startswith(base), f"absolute item link {e.get('link')}"
        assert e.get("title"), "item title"
    dates = [e.published_parsed for e in feed.entries]
    assert dates == sorted(dates, reverse=True), "items are newest first"
    print(f"feed ok: {len(feed.entries)} items, RSS 2.0, no parser warnings")


if __name__ == "__main__":
    main(sys.argv[1].rstrip("/"))
