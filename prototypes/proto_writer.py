import os, uuid, sys

sys.path.insert(0, "/work/main")
import numpy as np, pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as pq

TYPES = {
    "tags": pa.string(),
    "fields_float": pa.float64(),
    "fields_int": pa.int64(),
    "fields_uint": pa.decimal128(20, 0),
    "fields_string": pa.string(),
    "fields_bool": pa.bool_(),
}


def text_map(col, vtype):
    col = pc.fill_null(col, "")
    items = pc.split_pattern(col, ",")
    off = items.offsets.to_numpy()
    flat = items.flatten()
    keep = pc.not_equal(flat, "").to_numpy(zero_copy_only=False)
    csum = np.zeros(len(keep) + 1, np.int64)
    np.cumsum(keep, out=csum[1:])
    new_off = csum[off].astype(np.int32)
    flat = flat.filter(pa.array(keep))
    kv = pc.split_pattern(flat, "=", max_splits=1)
    keys = pc.list_element(kv, 0)
    vals = pc.list_element(kv, 1)
    if vtype in (pa.int64(), pa.decimal128(20, 0)):
        vals = pc.utf8_slice_codeunits(vals, 0, -1)
    if vtype == pa.bool_():
        vals = pc.is_in(vals, value_set=pa.array(["t", "T", "true", "True", "TRUE"]))
    else:
        vals = vals.cast(vtype)
    return pa.MapArray.from_arrays(pa.array(new_off), keys, vals)


class WriteChunks:
    def __init__(self):
        self.writers = {}
        self.rows = {}
        self.out = None

    def eval(self, path, out):
        from python_udfs.chunk_table import chunk_table

        self.out = out
        data = open(path.removeprefix("file:"), "rb").read()
        t = chunk_table(os.path.basename(path), data, "ns", 0)
        pts = t.filter(pc.equal(t["row_kind"], "point"))
        cols = {n: pts[n].combine_chunks() for n in ("position", "measurement")}
        for n, vt in TYPES.items():
            cols[n] = text_map(pts[n].combine_chunks(), vt)
        cols["time_ns"] = pts["time_ns"].combine_chunks()
        cols["time_from_ingest"] = pts["time_from_ingest"].combine_chunks()
        st = pa.table(cols)
        for m in pc.unique(st["measurement"]).to_pylist():
            part = st.filter(pc.equal(st["measurement"], m)).drop_columns(["measurement"])
            w = self.writers.get(m)
            if w is None:
                d = f"{out}/row_kind=point/measurement={m}"
                os.makedirs(d, exist_ok=True)
                w = self.writers[m] = pq.ParquetWriter(
                    f"{d}/{uuid.uuid4().hex}.parquet", part.schema, compression="zstd"
                )
                self.rows[m] = 0
            w.write_table(part, row_group_size=1 << 20)
            self.rows[m] += len(part)
        return iter(())

    def terminate(self):
        for m, w in self.writers.items():
            w.close()
            yield (w.where if hasattr(w, "where") else m, self.rows[m])
