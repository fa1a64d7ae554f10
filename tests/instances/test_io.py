"""Tests of instances/io.py: JSON files of instances and their metadata."""

import json
import os

import numpy as np
import pytest

from anonratio.bench.registry import FAMILIES, generate
from anonratio.instances import InstanceFormatError, KAnonymityInstance, instance_id
from anonratio.instances.io import load_instance, save_instance
from anonratio.instances.kanonymity.generators import planted_table, random_table


def _instance():
    table = random_table(30, 3, cardinality=(5, 8), levels=(2, 3), seed=4)
    table = type(table)(
        table.codes,
        table.attributes,
        table.values,
        table.hierarchies,
        [1.0, 2.5, 0.5],
        np.arange(30) % 3,
        "disease",
        ("flu", "cold", "hiv"),
    )
    return KAnonymityInstance(table, 4, "generalization", row_deletion=True)


def _same(a, b):
    assert instance_id(a) == instance_id(b)
    assert a.params == b.params
    np.testing.assert_array_equal(a.table.codes, b.table.codes)
    np.testing.assert_array_equal(a.table.weights, b.table.weights)
    np.testing.assert_array_equal(a.table.sensitive, b.table.sensitive)
    assert a.table.values == b.table.values and a.table.attributes == b.table.attributes
    for ha, hb in zip(a.table.hierarchies, b.table.hierarchies, strict=True):
        np.testing.assert_array_equal(ha.groups, hb.groups)
        assert ha.labels == hb.labels


@pytest.mark.parametrize("name", ["inst.json", "sub/dir/inst.json.gz"])
def test_round_trip_keeps_id_and_meta(tmp_path, name):
    inst = _instance()
    meta = {"family": "manual", "seed": np.int64(3), "optimum": np.float64(1.5), "tags": ("a",)}
    ident = save_instance(tmp_path / name, inst, meta=meta)
    assert ident == instance_id(inst)
    back, got = load_instance(tmp_path / name)
    _same(inst, back)
    assert got == {"family": "manual", "seed": 3, "optimum": 1.5, "tags": ["a"]}


def test_file_layout(tmp_path):
    inst = _instance()
    save_instance(tmp_path / "i.json", inst)
    doc = json.loads((tmp_path / "i.json").read_text())
    assert doc["problem"] == "k-anonymity" and doc["id"] == instance_id(inst)
    assert doc["meta"] == {}
    assert {"table", "k", "model", "row_deletion"} <= set(doc)
    assert load_instance(tmp_path / "i.json")[1] == {}


_NO_ADULT = pytest.mark.skipif(
    not os.environ.get("ANONRATIO_DATASETS"), reason="ANONRATIO_DATASETS unset: no Adult"
)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=_NO_ADULT) if n.endswith("-adult") else n
        for n in sorted(FAMILIES)
        if n != "kanon-adult"
    ],
)
def test_family_instances_round_trip(tmp_path, name):
    inst, meta = generate(name, seed=2)
    path = tmp_path / f"{name}.json"
    save_instance(path, inst, meta=meta)
    back, got = load_instance(path)
    assert instance_id(back) == instance_id(inst)
    assert got == json.loads(json.dumps(meta))


def test_planted_without_hierarchies_round_trip(tmp_path):
    inst = KAnonymityInstance(planted_table(20, 4, seed=0), 2)
    save_instance(tmp_path / "p.json", inst)
    back, _ = load_instance(tmp_path / "p.json")
    assert back.table.hierarchies == (None,) * 4
    assert instance_id(back) == instance_id(inst)


def _doc(tmp_path):
    inst = _instance()
    save_instance(tmp_path / "good.json", inst)
    return json.loads((tmp_path / "good.json").read_text())


def _dump(tmp_path, obj, name="bad.json"):
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return path


def test_load_errors_name_the_file(tmp_path):
    with pytest.raises(InstanceFormatError, match=r"bad\.json: not a valid JSON instance file"):
        load_instance(_dump(tmp_path, "{not json"))
    with pytest.raises(InstanceFormatError, match=r"bad\.json: expected a JSON object, got array"):
        load_instance(_dump(tmp_path, [1, 2]))
    doc = _doc(tmp_path)
    del doc["problem"]
    with pytest.raises(InstanceFormatError, match=r"bad\.json: missing field 'problem'"):
        load_instance(_dump(tmp_path, doc))
    doc = _doc(tmp_path)
    doc["problem"] = "tsp"
    with pytest.raises(InstanceFormatError, match=r"bad\.json: unknown problem 'tsp'; known"):
        load_instance(_dump(tmp_path, doc))
    doc = _doc(tmp_path)
    del doc["k"]
    with pytest.raises(
        InstanceFormatError,
        match=r"bad\.json: malformed k-anonymity instance: missing field .k.",
    ):
        load_instance(_dump(tmp_path, doc))
    doc = _doc(tmp_path)
    del doc["table"]["codes"]
    with pytest.raises(
        InstanceFormatError,
        match=r"bad\.json: malformed k-anonymity instance: malformed table object",
    ):
        load_instance(_dump(tmp_path, doc))
    doc = _doc(tmp_path)
    doc["k"] = 1
    with pytest.raises(
        InstanceFormatError,
        match=r"bad\.json: malformed k-anonymity instance: `k` must be",
    ):
        load_instance(_dump(tmp_path, doc))
    doc = _doc(tmp_path)
    doc["meta"] = [1]
    with pytest.raises(InstanceFormatError, match=r"bad\.json: field 'meta' must be an object"):
        load_instance(_dump(tmp_path, doc))
    doc = _doc(tmp_path)
    doc["table"]["codes"][0][0] = (doc["table"]["codes"][0][0] + 1) % 5  # still a valid code
    with pytest.raises(InstanceFormatError, match=r"bad\.json: stored id .* does not match"):
        load_instance(_dump(tmp_path, doc))
    gz = tmp_path / "bad.json.gz"
    gz.write_bytes(b"not gzip")
    with pytest.raises(InstanceFormatError, match=r"bad\.json\.gz: not a valid JSON instance"):
        load_instance(gz)
    with pytest.raises(FileNotFoundError, match="instance file not found"):
        load_instance(tmp_path / "missing.json")


def test_load_without_id_or_meta(tmp_path):
    doc = _doc(tmp_path)
    del doc["id"], doc["meta"]
    inst, meta = load_instance(_dump(tmp_path, doc))
    assert meta == {} and inst.k == 4


def test_save_errors(tmp_path):
    with pytest.raises(ValueError, match="`meta` must be a dict or None, got list"):
        save_instance(tmp_path / "x.json", _instance(), meta=[1])
    with pytest.raises(ValueError, match="`instance` must be a registered problem instance"):
        save_instance(tmp_path / "x.json", {"k": 2})
    with pytest.raises(TypeError, match="object is not JSON-serializable"):
        save_instance(tmp_path / "x.json", _instance(), meta={"f": object()})


def test_save_is_atomic_and_writes_standard_json(tmp_path):
    path = tmp_path / "sub" / "x.json"
    save_instance(path, _instance(), meta={"optimum": float("nan"), "bound": float("inf")})
    assert sorted(p.name for p in path.parent.iterdir()) == ["x.json"]  # no temporary left
    doc = json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
    assert doc["meta"] == {"optimum": None, "bound": None}
    (tmp_path / "d.json").mkdir()
    with pytest.raises(IsADirectoryError):
        save_instance(tmp_path / "d.json", _instance())
    assert list((tmp_path / "d.json").iterdir()) == []


def test_load_errors_give_the_line_of_a_syntax_error(tmp_path):
    with pytest.raises(InstanceFormatError, match=r"bad\.json: .* at line 3, column 1$"):
        load_instance(_dump(tmp_path, '{\n"problem": "bin-covering",\n}'))
    with pytest.raises(InstanceFormatError, match=r"bad\.json: empty file"):
        load_instance(_dump(tmp_path, ""))
    with pytest.raises(InstanceFormatError, match=r"key 'k' appears twice"):
        load_instance(_dump(tmp_path, '{"problem": "bin-covering", "k": 1, "k": 2}'))
    with pytest.raises(InstanceFormatError, match=r"is a directory"):
        load_instance(tmp_path)
