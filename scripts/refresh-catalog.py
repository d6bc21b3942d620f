#!/usr/bin/env python3
"""Regenerates the built-in model catalog, host/ai/src/models/catalog.json.

The source is the current pi-ai package on the npm registry (@earendil-works/pi-ai): its
`dist/providers/data/<provider>.json` files are the generated model lists the reference pi
ships. The default model per provider comes from the coding-agent package of the same
release (@earendil-works/pi-coding-agent, `dist/core/model-resolver.js`,
`defaultModelPerProvider`), copied in its order because the initial pick walks it in order.

Only chat models whose protocol the host speaks are kept, grouped by provider with the
provider's most common `api` and base URL written once (models differing from it say so), and
only the fields the host reads. The output is stamped with the package versions and the date.

Usage: python3 scripts/refresh-catalog.py [--version X.Y.Z] [--output PATH]
Python 3.11, standard library only.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import io
import json
import re
import sys
import tarfile
import urllib.request
from pathlib import Path

REGISTRY = "https://registry.npmjs.org"
MODELS_PACKAGE = "@earendil-works/pi-ai"
AGENT_PACKAGE = "@earendil-works/pi-coding-agent"
DATA_DIR = "package/dist/providers/data/"
RESOLVER_FILE = "package/dist/core/model-resolver.js"

# The protocols the host speaks, and protocols it reaches through another one.
SPOKEN_APIS = {
    "anthropic-messages",
    "openai-completions",
    "openai-responses",
    "google-generative-ai",
    "azure-openai-responses",
}
# Mistral's own Conversations API has an OpenAI Chat Completions twin at /v1.
MAPPED_APIS = {
    "mistral-conversations": ("openai-completions", "https://api.mistral.ai/v1"),
}

# Compat switches the adapters read; the rest describe features the host does not have.
COMPAT_KEYS = [
    "supportsStore",
    "supportsDeveloperRole",
    "supportsReasoningEffort",
    "supportsUsageInStreaming",
    "maxTokensField",
    "requiresToolResultName",
    "requiresAssistantAfterToolResult",
    "requiresThinkingAsText",
    "thinkingFormat",
    "supportsStrictMode",
]
KNOWN_THINKING_FORMATS = {"openai", "openrouter", "deepseek", "zai", "qwen", "chat-template"}
KNOWN_MAX_TOKENS_FIELDS = {"max_tokens", "max_completion_tokens"}


def fetch_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=60) as response:
        return json.load(response)


def fetch_tarball(package: str, version: str | None) -> tuple[str, tarfile.TarFile]:
    meta = fetch_json(f"{REGISTRY}/{package}/{version or 'latest'}")
    with urllib.request.urlopen(meta["dist"]["tarball"], timeout=120) as response:
        data = response.read()
    return meta["version"], tarfile.open(fileobj=io.BytesIO(data), mode="r:gz")


def read_member(tar: tarfile.TarFile, name: str) -> str:
    member = tar.extractfile(name)
    if member is None:
        sys.exit(f"{name} is missing from the package")
    return member.read().decode("utf-8")


def provider_files(tar: tarfile.TarFile) -> dict[str, dict]:
    out = {}
    for member in tar.getmembers():
        name = member.name
        if not name.startswith(DATA_DIR) or not name.endswith(".json"):
            continue
        provider = name[len(DATA_DIR) : -len(".json")]
        if "/" in provider or provider.startswith("."):
            continue
        out[provider] = json.loads(read_member(tar, name))
    return out


def slim_compat(compat: dict | None) -> dict | None:
    if not compat:
        return None
    out = {k: compat[k] for k in COMPAT_KEYS if k in compat}
    if out.get("thinkingFormat") not in KNOWN_THINKING_FORMATS:
        out.pop("thinkingFormat", None)
    if out.get("maxTokensField") not in KNOWN_MAX_TOKENS_FIELDS:
        out.pop("maxTokensField", None)
    return out or None


def slim_model(model: dict) -> dict | None:
    if model.get("type", "chat") != "chat":
        return None
    api, base_url = model["api"], model.get("baseUrl", "")
    if api in MAPPED_APIS:
        api, base_url = MAPPED_APIS[api]
    if api not in SPOKEN_APIS:
        return None
    # Only Azure resolves its endpoint from the environment; an empty URL elsewhere is unusable.
    if not base_url and api != "azure-openai-responses":
        return None
    cost = model.get("cost") or {}
    out = {
        "id": model["id"],
        "name": model.get("name") or model["id"],
        "api": api,
        "baseUrl": base_url,
        "reasoning": bool(model.get("reasoning")),
        "input": model.get("input") or ["text"],
        "cost": [cost.get(k, 0) for k in ("input", "output", "cacheRead", "cacheWrite")],
        "contextWindow": model.get("contextWindow", 128000),
        "maxTokens": model.get("maxTokens", 16384),
    }
    if model.get("headers"):
        out["headers"] = model["headers"]
    compat = slim_compat(model.get("compat"))
    if compat:
        out["compat"] = compat
    return out


def provider_entry(provider: str, data: dict) -> dict | None:
    models = []
    for by_key in data.values():
        if not isinstance(by_key, dict):
            continue
        for model in by_key.values():
            if isinstance(model, dict):
                slim = slim_model(model)
                if slim:
                    models.append(slim)
    if not models:
        return None
    models.sort(key=lambda m: m["id"])
    api = collections.Counter(m["api"] for m in models).most_common(1)[0][0]
    base_url = collections.Counter(m["baseUrl"] for m in models).most_common(1)[0][0]
    for m in models:
        if m["api"] == api:
            del m["api"]
        if m["baseUrl"] == base_url:
            del m["baseUrl"]
    return {"id": provider, "api": api, "baseUrl": base_url, "models": models}


def default_models(resolver_js: str) -> list[list[str]]:
    found = re.search(r"defaultModelPerProvider\s*=\s*\{(.*?)\};", resolver_js, re.S)
    if not found:
        sys.exit(f"defaultModelPerProvider not found in {RESOLVER_FILE}")
    pairs = re.findall(r'^\s*"?([\w.-]+)"?\s*:\s*"([^"]+)"', found.group(1), re.M)
    if not pairs:
        sys.exit("defaultModelPerProvider is empty")
    return [[provider, model] for provider, model in pairs]


def render(catalog: dict) -> str:
    """One provider header and one model per line: diffs stay readable, parsing stays cheap."""
    head = {k: v for k, v in catalog.items() if k != "providers"}
    lines = ["{"]
    for key, value in head.items():
        lines.append(f"{json.dumps(key)}:{json.dumps(value, separators=(',', ':'))},")
    lines.append('"providers":[')
    for i, provider in enumerate(catalog["providers"]):
        fields = {k: v for k, v in provider.items() if k != "models"}
        opening = json.dumps(fields, separators=(",", ":"))[:-1]
        lines.append(f'{opening},"models":[')
        models = provider["models"]
        for j, model in enumerate(models):
            comma = "," if j + 1 < len(models) else ""
            lines.append(json.dumps(model, separators=(",", ":"), ensure_ascii=False) + comma)
        lines.append("]}" + ("," if i + 1 < len(catalog["providers"]) else ""))
    lines.append("]}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", help="pi-ai version (default: the latest)")
    parser.add_argument(
        "--output",
        default=str(Path(__file__).resolve().parent.parent / "host/ai/src/models/catalog.json"),
    )
    args = parser.parse_args()

    version, tar = fetch_tarball(MODELS_PACKAGE, args.version)
    agent_version, agent_tar = fetch_tarball(AGENT_PACKAGE, version)
    providers = [
        entry
        for name, data in sorted(provider_files(tar).items())
        if (entry := provider_entry(name, data))
    ]
    catalog = {
        "source": f"{MODELS_PACKAGE}@{version} dist/providers/data",
        "defaultsSource": f"{AGENT_PACKAGE}@{agent_version} {RESOLVER_FILE[len('package/'):]}"
        " defaultModelPerProvider",
        "generated": datetime.date.today().isoformat(),
        "defaults": default_models(read_member(agent_tar, RESOLVER_FILE)),
        "providers": providers,
    }
    output = Path(args.output)
    partial = output.with_name(output.name + ".partial")
    partial.write_text(render(catalog), encoding="utf-8")
    partial.replace(output)
    count = sum(len(p["models"]) for p in providers)
    print(f"{args.output}: {len(providers)} providers, {count} models from {version}")


if __name__ == "__main__":
    main()
