#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# OP2's HDF5 layout, as OP2's library writes it (op_hdf5.cpp), checked with h5py, independently of
# parloop's own reader:
#   write FILE  writes a small mesh as OP2 writes one, which test_hdf5 then reads;
#   check FILE  checks the file test_hdf5 wrote against that layout, dataset by dataset.
# The mesh: 6 cells of 4 nodes (of 9), p_x on the nodes, p_q on the cells, p_bound of int, a
# constant qinf of 4; values computed here and in test_hdf5 alike.
import sys

import h5py
import numpy as np

NODES, CELLS = 9, 6


def pcell():
    return np.array([[(c + k) % NODES for k in range(4)] for c in range(CELLS)], dtype="<i4")


def p_x():
    return np.array([[n + 0.5 * j for j in range(2)] for n in range(NODES)], dtype="<f8")


def p_q():
    return np.array([[c * 10.0 + j for j in range(4)] for c in range(CELLS)], dtype="<f8")


def p_bound():
    return np.array([[c % 3] for c in range(CELLS)], dtype="<i4")


QINF = np.array([1.0, 0.5, 0.0, 2.5], dtype="<f8")


def text_attribute(obj, key, text, size):
    """A scalar C string of `size` bytes as OP2's H5Tcopy(H5T_C_S1) makes it, its bytes written as
    they are (OP2's "double" takes 6 bytes, no NUL)."""
    t = h5py.h5t.C_S1.copy()
    t.set_size(size)
    t.set_strpad(h5py.h5t.STR_NULLTERM)
    a = h5py.h5a.create(obj.id, key.encode(), t, h5py.h5s.create(h5py.h5s.SCALAR))
    a.write(np.array(text.encode().ljust(size, b"\0"), dtype=f"S{size}"), mtype=t)


def write(path):
    with h5py.File(path, "w") as f:
        for name, size in (("nodes", NODES), ("cells", CELLS)):
            f.create_dataset(name, data=np.array([size], dtype="<i4"))
        m = f.create_dataset("pcell", data=pcell())
        m.attrs.create("size", np.array([CELLS], dtype="<i4"))
        m.attrs.create("dim", np.array([4], dtype="<i4"))
        text_attribute(m, "type", "int", 10)
        for name, data, type_text in (("p_x", p_x(), "double"), ("/group3/group2/p_q", p_q(), "double:soa"),
                                      ("p_bound", p_bound(), "int")):
            d = f.create_dataset(name, data=data)
            d.attrs.create("size", np.array([data.shape[1] * data.dtype.itemsize], dtype="<i4"))
            d.attrs.create("dim", np.array([data.shape[1]], dtype="<i4"))
            text_attribute(d, "type", type_text, len(type_text))
        # A dat of one value an element as a rank-1 dataset: OP2 reads it as dim 1.
        f.create_dataset("p_adt", data=np.arange(CELLS, dtype="<f8") * 0.25)
        c = f.create_dataset("qinf", data=QINF)
        c.attrs.create("dim", np.array([4], dtype="<i4"))
        text_attribute(c, "type", "double", 6)


def expect(condition, what):
    if not condition:
        sys.exit("hdf5_op2_layout: " + what)


def check_attrs(d, name, size, dim, type_text, type_bytes):
    expect(d.attrs["size"].dtype == np.dtype("<i4") and d.attrs["size"].shape == (1,), f"{name}: size is int[1]")
    expect(int(d.attrs["size"][0]) == size, f"{name}: size {d.attrs['size'][0]}, expected {size}")
    expect(d.attrs["dim"].dtype == np.dtype("<i4") and int(d.attrs["dim"][0]) == dim, f"{name}: dim")
    t = d.attrs.get_id("type")
    expect(t.shape == () and t.get_type().get_size() == type_bytes, f"{name}: type is a {type_bytes}-byte string")
    expect(t.get_type().get_strpad() == h5py.h5t.STR_NULLTERM, f"{name}: type is NUL-terminated")
    expect(d.attrs["type"].rstrip(b"\0").decode() == type_text, f"{name}: type '{d.attrs['type']}'")


def check(path):
    with h5py.File(path, "r") as f:
        for name, size in (("nodes", NODES), ("cells", CELLS)):
            d = f[name]
            expect(d.dtype == np.dtype("<i4") and d.shape == (1,) and int(d[0]) == size, f"set {name}")
            expect(len(d.attrs) == 0, f"set {name} has no attributes")
        m = f["pcell"]
        expect(m.dtype == np.dtype("<i4") and m.shape == (CELLS, 4), "pcell: int [cells][4]")
        expect((m[()] == pcell()).all(), "pcell's values")
        check_attrs(m, "pcell", CELLS, 4, "int", 10)
        for name, data, type_text in (("p_x", p_x(), "double"), ("results/step_1/p_q", p_q(), "double"),
                                      ("p_bound", p_bound(), "int")):
            d = f[name]
            expect(d.dtype == data.dtype and d.shape == data.shape, f"{name}: {d.dtype} {d.shape}")
            expect((d[()] == data).all(), f"{name}'s values")
            check_attrs(d, name, data.shape[1] * data.dtype.itemsize, data.shape[1], type_text, len(type_text))
        c = f["qinf"]
        expect(c.dtype == np.dtype("<f8") and c.shape == (4,) and (c[()] == QINF).all(), "qinf")
        expect("size" not in c.attrs and int(c.attrs["dim"][0]) == 4, "qinf: dim, no size")
        expect(c.attrs["type"].rstrip(b"\0").decode() == "double", "qinf: type")
        expect(isinstance(f["results"], h5py.Group) and isinstance(f["results/step_1"], h5py.Group), "groups")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        sys.exit("usage: hdf5_op2_layout.py write|check FILE")
    (write if sys.argv[1] == "write" else check)(sys.argv[2])
