"""Minimal ESRI shapefile (.shp polygon) and dBASE (.dbf) reader for the gazetteer build.

Only what Natural Earth's admin-0 polygons use: shape type 5 (Polygon), little-endian
point records, dBASE III character/numeric fields. No third-party dependency.
"""
import struct


def read_dbf(data):
    """Returns a list of dicts, one per record, field name -> stripped string."""
    count, header_len, record_len = struct.unpack("<xxxxIHH", data[:12])
    fields = []
    pos = 32
    while data[pos] != 0x0D:
        name = data[pos:pos + 11].split(b"\0", 1)[0].decode("ascii")
        length = data[pos + 16]
        fields.append((name, length))
        pos += 32
    records = []
    for i in range(count):
        start = header_len + i * record_len + 1  # skip the deletion flag
        record = {}
        for name, length in fields:
            record[name] = data[start:start + length].decode("utf-8", "replace").strip()
            start += length
        records.append(record)
    return records


def read_shp_polygons(data):
    """Returns a list (one per record) of rings; each ring is a list of (lon, lat) floats."""
    shapes = []
    pos = 100
    while pos < len(data):
        _, content_len = struct.unpack(">II", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + content_len * 2]
        pos += 8 + content_len * 2
        shape_type = struct.unpack("<I", body[:4])[0]
        if shape_type == 0:
            shapes.append([])
            continue
        if shape_type != 5:
            raise ValueError(f"unexpected shape type {shape_type}")
        num_parts, num_points = struct.unpack("<II", body[36:44])
        parts = list(struct.unpack(f"<{num_parts}I", body[44:44 + 4 * num_parts]))
        pts_off = 44 + 4 * num_parts
        coords = struct.unpack(f"<{2 * num_points}d", body[pts_off:pts_off + 16 * num_points])
        points = list(zip(coords[0::2], coords[1::2]))
        parts.append(num_points)
        shapes.append([points[parts[k]:parts[k + 1]] for k in range(num_parts)])
    return shapes
