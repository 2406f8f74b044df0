#!/usr/bin/env python3
"""Writes oracle.json: what two independent MaxMind DB readers say about MaxMind's test databases.

    python3 -m venv /tmp/mmdb-venv && /tmp/mmdb-venv/bin/pip install --no-binary :all: maxminddb==3.2.0
    apt-get install mmdb-bin            # mmdblookup, libmaxminddb 1.7.1 (Debian 12)
    /tmp/mmdb-venv/bin/python Tests/CoreLocationNetworkTests/Fixtures/mmdb/make-oracle.py

Copies the databases the tests use from the maxminddb 3.2.0 source distribution on PyPI (Apache-2.0 / MIT,
NOTICE) next to this script, then for each database and many addresses (every network the tree holds, sampled
to at most 80, at its first, middle and last address and just past it; the IPv4-mapped and 6to4 aliases of IPv4
networks; 60 seeded random addresses; fixed ones — only the fixed ones for the damaged and resource-limit files,
which map every address to one or two records) records:

- "records": the whole record and the prefix length from the pure-Python reader (`maxminddb.reader.Reader`,
  MODE_MEMORY: no C extension), each value tagged with its type as `mmdblookup` (libmaxminddb) prints it for
  the same address; the printed value is checked against Python's;
- "locations": what `MaxMindDatabase.lookup` returned when it was built on libmaxminddb (the paths
  location/latitude, location/longitude, location/accuracy_radius, city/names/en, country/iso_code as
  MMDB_aget_value reads them), taken from `mmdblookup`'s record, or path by path when it cannot print the
  whole record (libmaxminddb 1.7.1 has no decoder limits: every mmdblookup runs under a 5 s timeout);
- "open": whether each reader opens the file, and the metadata Python reads.

Prefix lengths are libmaxminddb's netmask: for an IPv4 address in an IPv6 database, counted from the root
(Python's for the address `::a.b.c.d`).
"""
import glob
import hashlib
import ipaddress
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile

import maxminddb
import maxminddb.reader

HERE = os.path.dirname(os.path.abspath(__file__))
VERSION = "3.2.0"
SDIST_SHA256 = "d28e0073fd1dd637c8b95947bc864b5625eca9f8f2db1538145e33b2a1cd4b92"

# Well-formed test databases, then damaged ones, then the resource-limit ones.
DATABASES = [
    "test-data/GeoIP2-City-Test", "test-data/GeoIP2-Country-Test", "test-data/GeoLite2-City-Test",
    "test-data/GeoLite2-Country-Test", "test-data/GeoIP2-City-Shield-Test", "test-data/GeoIP2-Enterprise-Test",
    "test-data/GeoIP2-Precision-Enterprise-Test", "test-data/GeoIP2-Anonymous-IP-Test",
    "test-data/GeoIP2-Connection-Type-Test", "test-data/GeoIP2-Domain-Test", "test-data/GeoIP2-DensityIncome-Test",
    "test-data/GeoIP2-IP-Risk-Test", "test-data/GeoIP2-Static-IP-Score-Test", "test-data/GeoIP2-User-Count-Test",
    "test-data/GeoLite2-ASN-Test", "test-data/GeoIP-Anonymous-Plus-Test", "test-data/GeoIP-Residential-Proxy-Test",
    "test-data/MaxMind-DB-test-ipv4-24", "test-data/MaxMind-DB-test-ipv4-28", "test-data/MaxMind-DB-test-ipv4-32",
    "test-data/MaxMind-DB-test-ipv6-24", "test-data/MaxMind-DB-test-ipv6-28", "test-data/MaxMind-DB-test-ipv6-32",
    "test-data/MaxMind-DB-test-mixed-24", "test-data/MaxMind-DB-test-mixed-28", "test-data/MaxMind-DB-test-mixed-32",
    "test-data/MaxMind-DB-test-decoder", "test-data/MaxMind-DB-test-nested", "test-data/MaxMind-DB-no-ipv4-search-tree",
    "test-data/MaxMind-DB-string-value-entries", "test-data/MaxMind-DB-test-metadata-pointers",
    "test-data/MaxMind-DB-test-pointer-decoder",
    "test-data/GeoIP2-City-Test-Broken-Double-Format", "test-data/GeoIP2-City-Test-Invalid-Node-Count",
    "test-data/MaxMind-DB-test-broken-pointers-24", "test-data/MaxMind-DB-test-broken-search-tree-24",
    "test-data/MaxMind-DB-test-pointer-decoder-dos", "test-data/MaxMind-DB-test-pointer-decoder-dos-ipv6",
    "test-data/MaxMind-DB-test-decoder-value-limit", "test-data/MaxMind-DB-test-decoder-value-limit-over",
    "test-data/MaxMind-DB-test-decoder-value-limit-pointer-heavy", "test-data/MaxMind-DB-test-decoder-payload-limit",
    "test-data/MaxMind-DB-test-decoder-payload-limit-over", "test-data/MaxMind-DB-test-metadata-payload-limit",
    "test-data/MaxMind-DB-test-decode-path-shared-budget", "test-data/MaxMind-DB-test-payload-amplification-dos-string",
]  # and every file in bad-data/ (main())

FIXED = ["81.2.69.160", "216.160.83.56", "89.160.20.112", "175.16.199.0", "2001:218::", "2a02:cf40::",
         "::ffff:81.2.69.160", "2001:480::1", "8.8.8.8", "1.1.1.1", "1.1.1.32", "2001:220::", "0.0.0.0",
         "255.255.255.255", "::", "::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::1.1.1.1", "2002:101:101::"]
MAX_NETWORKS = 80


def fetch_sdist(work):
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                    f"maxminddb=={VERSION}", "-d", work], check=True)
    path = os.path.join(work, f"maxminddb-{VERSION}.tar.gz")
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if digest != SDIST_SHA256:
        sys.exit(f"maxminddb-{VERSION}.tar.gz: sha256 {digest}, expected {SDIST_SHA256}")
    with tarfile.open(path) as tar:
        tar.extractall(work, filter="data")
    return os.path.join(work, f"maxminddb-{VERSION}", "tests", "data")


TIMEOUTS = {}


def mmdblookup(path, address, *keys):
    """(status, text): status 'ok', 'notfound', 'nomatch', 'lookup-error', 'data-error', 'open-error', 'timeout'.

    The denial-of-service files make libmaxminddb 1.7.1 print forever: after two timeouts on a file, whole records
    are no longer asked for (the paths still are: they decode only what they pass)."""
    if not keys and TIMEOUTS.get(path, 0) >= 2:
        return "timeout", ""
    # prlimit rather than preexec_fn: subprocess can then spawn without copying this (large) process. The output
    # goes to a file of at most 8 MiB (an amplification file prints 512 MiB): past that, SIGXFSZ ends it.
    with tempfile.TemporaryFile() as output:
        try:
            run = subprocess.run(
                ["prlimit", f"--as={1 << 30}", f"--fsize={8 << 20}", "mmdblookup", "--file", path, "--ip", address,
                 *keys], stdout=output, stderr=subprocess.STDOUT, timeout=5)
        except subprocess.TimeoutExpired:
            TIMEOUTS[path] = TIMEOUTS.get(path, 0) + 1
            return "timeout", ""
        if run.returncode < 0:
            TIMEOUTS[path] = TIMEOUTS.get(path, 0) + 1
            return "timeout", ""
        output.seek(0)
        out = output.read().decode("utf-8", "surrogateescape")
    if "Can't open" in out:
        return "open-error", out.strip()
    if "Could not find an entry" in out:
        return "notfound", ""
    if "Got an error from the maxminddb library" in out or "IPv6 address in an IPv4-only database" in out:
        return "lookup-error", out.strip()
    if "lookup path does not match the data" in out:
        return "nomatch", ""
    if "Got an error looking up the entry data" in out:
        return "data-error", out.strip()
    if run.returncode != 0:
        return "data-error", out.strip()
    return "ok", out


LEAF = re.compile(r"^\s*(.*?) ?<(utf8_string|double|float|bytes|uint16|uint32|uint64|uint128|int32|boolean)>$")
KEY = re.compile(r'^\s*"(.*)": $')


def parse_dump(text):
    """mmdblookup's printed record as nested ('map', [(key, v)…]) / ('array', […]) / (type, printed) tuples."""
    lines = [line for line in text.split("\n") if line.strip()]
    position = 0

    def value():
        nonlocal position
        line = lines[position].strip()
        position += 1
        if line == "{":
            pairs = []
            while lines[position].strip() != "}":
                key = KEY.match(lines[position])
                if not key:
                    raise ValueError(f"not a key: {lines[position]!r}")
                position += 1
                pairs.append((key.group(1), value()))
            position += 1
            return ("map", pairs)
        if line == "[":
            elements = []
            while lines[position].strip() != "]":
                elements.append(value())
            position += 1
            return ("array", elements)
        leaf = LEAF.match(line)
        if not leaf:
            raise ValueError(f"not a value: {line!r}")
        return (leaf.group(2), leaf.group(1))

    result = value()
    if position != len(lines):
        raise ValueError("trailing lines")
    return result


def close(exact, printed):
    """Python's value against libmaxminddb's `%f` text."""
    value = float(printed)
    if exact != exact:
        return value != value
    return exact == value or abs(exact - value) <= 5e-7 * max(1, abs(exact))


def tag(python, printed):
    """The typed, exact form both sides produce: maps, arrays, and 'type:value' leaves."""
    kind = printed[0]
    if kind == "map":
        assert isinstance(python, dict), (python, printed)
        keys = [key for key, _ in printed[1]]
        assert sorted(set(keys)) == sorted(python), (keys, list(python))
        # A repeated key: Python keeps the last value, and so does MaxMindValue.map.
        last = {key: value for key, value in printed[1]}
        return {key: tag(python[key], last[key]) for key in python}
    if kind == "array":
        assert isinstance(python, list) and len(python) == len(printed[1]), (python, printed)
        return [tag(p, q) for p, q in zip(python, printed[1])]
    text = printed[1]
    if kind == "utf8_string":
        assert text == f'"{python}"', (python, text)
        return "utf8_string:" + python
    if kind == "double":
        assert close(python, text), (python, text)
        return "double:" + struct.pack(">d", python).hex()
    if kind == "float":
        assert close(python, text), (python, text)
        return "float:" + struct.pack(">f", python).hex()
    if kind == "bytes":
        assert text == python.hex().upper(), (python, text)
        return "bytes:" + python.hex()
    if kind == "boolean":
        assert text == ("true" if python else "false"), (python, text)
        return "boolean:" + text
    if kind == "uint128":
        assert int(text, 16) == python, (python, text)
        return f"uint128:{python}"
    assert int(text) == python, (kind, python, text)
    return f"{kind}:{python}"


def fnv1a64(record):
    """FNV-1a (64-bit) over the tagged record, depth first, map keys in order of their UTF-8 bytes: the stand-in
    for a record too large to keep (MaxMind's limit files hold records of 65 536 values or 2 MiB)."""
    digest = 0xCBF29CE484222325

    def feed(data):
        nonlocal digest
        for byte in data:
            digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF

    def walk(value):
        if isinstance(value, dict):
            feed(b"{")
            for key in sorted(value, key=lambda k: k.encode()):
                feed(key.encode() + b"\0")
                walk(value[key])
            feed(b"}")
        elif isinstance(value, list):
            feed(b"[")
            for element in value:
                walk(element)
            feed(b"]")
        else:
            feed(value.encode() + b"\0")

    walk(record)
    return f"{digest:016x}"


def compact(record):
    text = json.dumps(record, ensure_ascii=False)
    return {"#fnv1a64": fnv1a64(record)} if len(text) > 65536 else record


def member(printed, key):
    """MMDB_aget_value's step: the first pair with `key`, None when absent or not a map."""
    if printed is None or printed[0] != "map":
        return None
    for name, value in printed[1]:
        if name == key:
            return value
    return None


def python_path(record, *keys):
    for key in keys:
        if not isinstance(record, dict) or key not in record:
            return None
        record = record[key]
    return record


def location(path, address, record, python_record):
    """What the libmaxminddb-backed MaxMindDatabase.lookup returned: None, 'noCoordinates', 'lookupFailed', or
    [latitude, longitude, accuracy, fromDatabase, city, country] with the coordinates as double bit patterns."""
    def get(*keys):
        if record is not None:
            value = record
            for key in keys:
                value = member(value, key)
            return "ok", value
        status, text = mmdblookup(path, address, *keys)
        if status == "nomatch":
            return "ok", None
        if status != "ok":
            return "error", None
        return "ok", parse_dump(text)

    def double(*keys):
        status, value = get(*keys)
        if status == "error":
            raise LookupError
        if value is None or value[0] != "double":
            return None
        exact = python_path(python_record, *keys)
        if isinstance(exact, float):
            assert close(exact, value[1]), (exact, value)
            return exact
        return float(value[1])

    def text(*keys):
        status, value = get(*keys)
        if status == "error":
            raise LookupError
        if value is None or value[0] != "utf8_string":
            return None
        return value[1][1:-1]

    try:
        latitude = double("location", "latitude")
        longitude = double("location", "longitude") if latitude is not None else None
        if latitude is None or longitude is None or abs(latitude) > 90 or abs(longitude) > 180:
            return "noCoordinates"
        city = text("city", "names", "en")
        country = text("country", "iso_code")
        status, radius = get("location", "accuracy_radius")
        if status == "error":
            raise LookupError
    except LookupError:
        return "lookupFailed"
    if radius is not None and radius[0] == "uint16" and int(radius[1]) > 0:
        accuracy, from_database = int(radius[1]) * 1000.0, True
    else:
        accuracy, from_database = (15000.0 if city is not None else 300000.0), False
    return [struct.pack(">d", latitude).hex(), struct.pack(">d", longitude).hex(), accuracy, from_database, city,
            country]


def networks(reader, ip_version):
    """The networks the tree maps to data (depth first, at most 4000), without decoding their records: the
    IPv4 aliases in an IPv6 tree (::ffff:0:0/96, 2002::/16) are skipped, ::/96 is given as IPv4 networks."""
    node_count = reader.metadata().node_count
    bits = 128 if ip_version == 6 else 32
    ipv4_start = getattr(reader, "_ipv4_start", 0)
    found, stack = [], [(0, 0, 0)]
    while stack and len(found) < 4000:
        node, depth, acc = stack.pop()
        if node > node_count:
            if bits == 128 and depth >= 96 and acc < (1 << 32):
                found.append(ipaddress.ip_network((acc, depth - 96)))
            elif bits == 128:
                found.append(ipaddress.IPv6Network((acc, depth)))
            else:
                found.append(ipaddress.IPv4Network((acc, depth)))
            continue
        if node == node_count or depth >= bits or (acc != 0 and node == ipv4_start):
            continue
        try:
            right, left = reader._read_node(node, 1), reader._read_node(node, 0)
        except Exception:  # a damaged tree: use what was read
            continue
        stack.append((right, depth + 1, acc | 1 << (bits - 1 - depth)))
        stack.append((left, depth + 1, acc))
    return found


def addresses_for(reader, ip_version):
    rng = random.Random(34)
    found = networks(reader, ip_version)
    if len(found) > MAX_NETWORKS:
        step = len(found) / MAX_NETWORKS
        found = [found[int(i * step)] for i in range(MAX_NETWORKS)]
    addresses = set(FIXED)
    for network in found:
        first, last = network.network_address, network.broadcast_address
        addresses.update([str(first), str(last), str(first + (network.num_addresses // 2))])
        if int(last) + 1 < (1 << network.max_prefixlen):
            addresses.add(str(last + 1))
        if network.version == 4 and ip_version == 6:
            addresses.add(f"::ffff:{first}")
            addresses.add(str(ipaddress.IPv6Address((0x2002 << 112) | (int(first) << 80))))
    for _ in range(30):
        addresses.add(str(ipaddress.IPv4Address(rng.getrandbits(32))))
        addresses.add(str(ipaddress.IPv6Address(rng.getrandbits(128))))
    return sorted(addresses, key=lambda a: (ipaddress.ip_address(a).version, int(ipaddress.ip_address(a))))


def main():
    work = tempfile.mkdtemp()
    data = fetch_sdist(work)
    shutil.copyfile(os.path.join(data, "test-data", "maps-with-pointers.raw"), os.path.join(HERE, "maps-with-pointers.raw"))
    names = [name for name in DATABASES if name.startswith("test-data/")]
    names += sorted(os.path.relpath(p, data)[:-5] for p in glob.glob(os.path.join(data, "bad-data", "*", "*.mmdb")))
    out = {"generator": "Tests/CoreLocationNetworkTests/Fixtures/mmdb/make-oracle.py",
           "python": f"maxminddb {VERSION} (pure Python, MODE_MEMORY)",
           "libmaxminddb": subprocess.run(["mmdblookup", "--version"], capture_output=True, text=True).stdout.strip(),
           "databases": {}, "records": {}}
    records = {}
    for name in names:
        source = os.path.join(data, name + ".mmdb")
        short = os.path.basename(name)
        shutil.copyfile(source, os.path.join(HERE, short + ".mmdb"))
        entry = {}
        status, _ = mmdblookup(source, "1.1.1.1")
        entry["libmaxminddbOpens"] = status != "open-error"
        try:
            reader = maxminddb.open_database(source, maxminddb.MODE_MEMORY)
            assert isinstance(reader, maxminddb.reader.Reader)
            meta = reader.metadata()
            entry["pythonOpens"] = True
            entry["metadata"] = {
                "nodeCount": meta.node_count, "recordSize": meta.record_size, "ipVersion": meta.ip_version,
                "databaseType": meta.database_type, "languages": meta.languages,
                "binaryFormatMajorVersion": meta.binary_format_major_version,
                "binaryFormatMinorVersion": meta.binary_format_minor_version, "buildEpoch": meta.build_epoch,
                "descriptions": meta.description}
        except Exception as error:
            entry["pythonOpens"] = False
            entry["pythonError"] = str(error)
            out["databases"][short] = entry
            print(f"{short}: Python refuses to open: {error}", file=sys.stderr)
            continue
        lookups, locations = [], []
        # The resource-limit files map (nearly) every address to one costly record: the fixed addresses suffice.
        # The damaged files hold a network or two: the fixed addresses reach them.
        hostile = name.startswith("bad-data/") or any(word in short for word in ("-dos", "-limit", "-budget"))
        for address in FIXED if hostile else addresses_for(reader, meta.ip_version):
            parsed = ipaddress.ip_address(address)
            if parsed.version == 6 and meta.ip_version == 4:
                lookups.append([address, 0, None])
                locations.append([address, None])
                continue
            try:
                # An IPv4 address in an IPv6 tree is ::a.b.c.d, and its prefix length counts from the root.
                ipv6_form = f"::{address}" if parsed.version == 4 and meta.ip_version == 6 else address
                record, prefix = reader.get_with_prefix_len(ipv6_form)
                python_error = None
            except Exception as error:
                record, prefix, python_error = None, None, str(error)
            status, text = mmdblookup(source, address)
            try:
                printed = parse_dump(text) if status == "ok" else None
            except (ValueError, IndexError):  # a key or string with a line break, or bytes that are not UTF-8
                print(f"{short} {address}: mmdblookup's record cannot be parsed", file=sys.stderr)
                status, printed = "unparsed", None
            if python_error is not None:
                lookups.append([address, None, "error"])
            elif record is None:
                assert status in ("notfound", "lookup-error"), (short, address, status)
                lookups.append([address, prefix, None])
            else:
                if printed is None:
                    print(f"{short} {address}: Python reads a record, mmdblookup says {status}", file=sys.stderr)
                    lookups.append([address, prefix, "untyped"])
                else:
                    tagged = json.dumps(tag(record, printed), sort_keys=True, ensure_ascii=False)
                    key = records.setdefault(tagged, f"r{len(records)}")
                    lookups.append([address, prefix, key])
            if status == "notfound":
                locations.append([address, None])
            elif status == "lookup-error":
                locations.append([address, "lookupFailed"])
            else:
                locations.append([address, location(source, address, printed, record)])
        entry["lookups"] = lookups
        entry["locations"] = locations
        out["databases"][short] = entry
        print(f"{short}: {len(lookups)} addresses", file=sys.stderr)
    out["records"] = {key: compact(json.loads(tagged)) for tagged, key in records.items()}
    with open(os.path.join(HERE, "oracle.json"), "w") as file:
        json.dump(out, file, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        file.write("\n")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
