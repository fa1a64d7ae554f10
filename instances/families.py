"""Named instance families for the CLI (``anonratio generate FAMILY``) and the sweep suites.

The CLI calls it as ``anonratio generate FAMILY --seed S --param key=value``. Each
:class:`Family` has a name, a problem, a description, default parameters and a builder.
Calling it (or :func:`generate`) with a seed and parameter overrides returns ``(instance, meta)``
where ``meta`` records the family, the full parameters, the seed, and the exact ``optimum`` when
the construction proves it (hardness gadgets). Parameters given as strings (from the command line)
are coerced to the type of their default.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np

from .base import verify
from .bin_covering_data import (
    CENSUS_FILES,
    census_instance,
    planted_three_partition,
    three_partition_no_instance,
    uniform_instance,
    zipf_instance,
)
from .gadgets import graph_representation_pair, triangle_union_gadget
from .generators import categorical_table, planted_table, random_table
from .kanonymity import KAnonymityInstance
from .loaders import ADULT_QI, load_adult
from .table import Table

__all__ = ["Family", "FAMILIES", "generate", "register_family", "coerce_param"]

#: name -> Family
FAMILIES = {}

_TRUE = {"true", "1", "yes", "on", "y", "t"}
_FALSE = {"false", "0", "no", "off", "n", "f"}


def coerce_param(name, value, default):
    """Coerce ``value`` (often a string from the command line) to the type of ``default``.

    bool from ``true/false/1/0/yes/no``; int and float by parsing; a tuple default from a
    comma-separated string (``"10,40"``); a ``None`` default takes ``"none"`` as None, else an
    int, a float or the string itself. A single number for a numeric tuple default is repeated
    (``"15"`` for ``(10, 40)`` gives ``(15, 15)``). Raises ``ValueError`` naming the parameter.

    Examples
    --------
    >>> coerce_param("k", "5", 3), coerce_param("row_deletion", "yes", False)
    (5, True)
    """
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                v = value.strip().lower()
                if v in _TRUE | _FALSE:
                    return v in _TRUE
                raise ValueError(value)
            if isinstance(value, bool | np.bool_) or value in (0, 1):
                return bool(value)
            raise ValueError(value)
        if isinstance(default, Integral):
            if isinstance(value, bool):
                raise ValueError(value)
            if isinstance(value, str):
                return int(value.strip())
            if isinstance(value, Integral) or (isinstance(value, float) and value.is_integer()):
                return int(value)
            raise ValueError(value)
        if isinstance(default, float):
            if isinstance(value, bool):
                raise ValueError(value)
            return float(value.strip() if isinstance(value, str) else value)
        if isinstance(default, tuple):
            if isinstance(value, str):
                parts = [x for x in value.split(",") if x.strip()]
            elif isinstance(value, Integral | float):
                parts = [value]
            else:
                parts = list(value)
            kind = default[0] if default else ""
            if not isinstance(kind, str) and len(parts) == 1:
                parts = parts * len(default)  # "15" for a (low, high) range means (15, 15)
            return tuple(coerce_param(name, p, kind) for p in parts)
        if default is None:
            if not isinstance(value, str):
                return value
            v = value.strip()
            if v.lower() in ("none", "null", ""):
                return None
            for conv in (int, float):
                try:
                    return conv(v)
                except ValueError:
                    pass
            return v
        if isinstance(default, str):
            if not isinstance(value, str):
                raise ValueError(value)
            return value.strip()
    except (ValueError, TypeError, AttributeError):
        pass
    raise ValueError(
        f"parameter `{name}` must be of type {type(default).__name__} like its default "
        f"{default!r}, got {value!r}"
    )


@dataclass(frozen=True)
class Family:
    """A named, seeded instance family.

    Parameters
    ----------
    name : str
    problem : str
        Problem name (``"k-anonymity"``).
    description : str
    defaults : mapping
        Every parameter with its default value (its type drives :func:`coerce_param`).
    build : callable
        ``build(rng, **params) -> (instance, extra_meta)``; ``extra_meta`` may hold
        ``"optimum"``, ``"lower_bound"``, ``"upper_bound"`` and construction notes.
    """

    name: str
    problem: str
    description: str
    defaults: Mapping = field(default_factory=dict)
    build: Callable = None

    def resolve(self, params):
        """Defaults overridden by ``params`` (coerced); unknown names raise ``ValueError``."""
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ValueError(
                f"unknown parameter {unknown[0]!r} for family {self.name!r}; known parameters: "
                f"{sorted(self.defaults)}"
            )
        out = dict(self.defaults)
        for key, value in params.items():
            out[key] = coerce_param(key, value, self.defaults[key])
        return out

    def __call__(self, seed=None, **params):
        """``(instance, meta)`` for ``seed`` and the parameter overrides."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, Integral)):
            raise ValueError(f"`seed` must be an integer or None, got {seed!r}")
        seed = None if seed is None else int(seed)
        resolved = self.resolve(params)
        instance, extra = self.build(np.random.default_rng(seed), **resolved)
        meta = {
            "family": self.name,
            "problem": self.problem,
            "params": {k: list(v) if isinstance(v, tuple) else v for k, v in resolved.items()},
            "seed": seed,
        }
        meta.update(extra)
        return instance, meta


def register_family(family):
    """Add ``family`` to :data:`FAMILIES` (its name must be new); returns it."""
    if family.name in FAMILIES:
        raise ValueError(f"family {family.name!r} is already registered")
    FAMILIES[family.name] = family
    return family


def generate(family, *, seed=None, **params):
    """Build an instance of the named family: ``(instance, meta)``.

    Parameters
    ----------
    family : str
        A name in :data:`FAMILIES`.
    seed : int or None
        Seed of the generator (recorded in ``meta``).
    **params
        Overrides of the family's defaults; strings are coerced to the default's type.

    Returns
    -------
    (instance, dict)
        ``meta`` has ``family``, ``problem``, ``params`` (all of them), ``seed``, and
        ``optimum`` when the construction proves it.

    Raises
    ------
    ValueError
        Unknown family or parameter (the message lists the known ones), or a bad value.

    Examples
    --------
    >>> inst, meta = generate("kanon-triangles", seed=0, n_triangles="2", n_vertices=5)
    >>> meta["optimum"], inst.k
    (54.0, 3)
    """
    entry = FAMILIES.get(family)
    if entry is None:
        raise ValueError(f"unknown family {family!r}; known families: {sorted(FAMILIES)}")
    return entry(seed, **params)


# ---------------------------------------------------------------------------------------------
# k-anonymity families
# ---------------------------------------------------------------------------------------------
def _kanon(table, p):
    return KAnonymityInstance(table, p["k"], p["model"], p["row_deletion"])


def _binary(rng, *, n, m, k, row_deletion):
    table = categorical_table(n, m, 2, seed=rng)
    return KAnonymityInstance(table, k, "suppression", row_deletion), {}


def _categorical(rng, **p):
    return _kanon(categorical_table(p["n"], p["m"], p["alphabet"], seed=rng), p), {}


def _ternary(rng, **p):
    return _kanon(categorical_table(p["n"], p["m"], 3, seed=rng), p), {}


def _random(rng, **p):
    zipf = p["zipf"] or None
    table = random_table(
        p["n"], p["m"], cardinality=p["cardinality"], levels=p["levels"], zipf=zipf, seed=rng
    )
    return _kanon(table, p), {}


def _planted(rng, **p):
    table, labels = planted_table(
        p["n"],
        p["m"],
        n_groups=p["n_groups"],
        noise=p["noise"],
        cardinality=p["cardinality"],
        levels=p["levels"] or None,
        seed=rng,
        return_labels=True,
    )
    instance = _kanon(table, p)
    extra = {}
    if np.bincount(labels).min() >= instance.k:  # the planted partition is feasible
        extra["upper_bound"] = verify(instance, labels).cost
    return instance, extra


def _triangles(rng, *, n_triangles, n_vertices, preliminary):
    g = triangle_union_gadget(n_triangles, n_vertices, seed=rng, preliminary=preliminary)
    extra = {
        "optimum": g.optimum,
        "lower_bound": g.lower_bound,
        "m": g.info["m"],
        "t": g.info["t"],
        "description": g.description,
    }
    return g.instance, extra


def _gap_pair(rng, *, k, member):
    if member not in ("first", "second"):
        raise ValueError(f"parameter `member` must be 'first' or 'second', got {member!r}")
    first, second = graph_representation_pair(k)
    g, other = (first, second) if member == "first" else (second, first)
    extra = {
        "optimum": g.optimum,
        "other_optimum": other.optimum,
        "pair_distance": g.info["pair_distance"],
        "description": g.description,
    }
    return g.instance, extra


def _adult(rng, *, n, k, model, row_deletion, qi):
    full = load_adult(qi=qi)
    rows = np.arange(full.n_records)
    if n:
        if not 1 <= n <= full.n_records:
            raise ValueError(f"parameter `n` must be in [0, {full.n_records}] (0 = all), got {n}")
        rows = np.sort(rng.choice(full.n_records, size=n, replace=False))
    table = Table(
        full.codes[rows],
        full.attributes,
        full.values,
        full.hierarchies,
        full.weights,
        None if full.sensitive is None else full.sensitive[rows],
        full.sensitive_name,
        full.sensitive_values,
    )
    instance = KAnonymityInstance(table, k, model, row_deletion)
    return instance, {"dataset": "adult", "n_records": int(table.n_records)}


_COMMON = {"k": 3, "model": "suppression", "row_deletion": False}

for _fam in (
    Family(
        "kanon-binary",
        "k-anonymity",
        "uniform random binary table (suppression = generalization), Aggarwal et al. 2005 §5-§6",
        {"n": 20, "m": 6, "k": 3, "row_deletion": False},
        _binary,
    ),
    Family(
        "kanon-ternary",
        "k-anonymity",
        "uniform random ternary table (the alphabet of the NP-hardness proof, 2005 §3)",
        {"n": 20, "m": 6, **_COMMON},
        _ternary,
    ),
    Family(
        "kanon-categorical",
        "k-anonymity",
        "uniform random table over an alphabet of `alphabet` values, no hierarchies",
        {"n": 20, "m": 6, "alphabet": 4, **_COMMON},
        _categorical,
    ),
    Family(
        "kanon-random",
        "k-anonymity",
        "Adult-like table: 10-40 values and 3-5 level interval hierarchies per attribute, "
        "optionally Zipf-skewed (zipf > 0); generalization model",
        {
            "n": 100,
            "m": 6,
            "k": 3,
            "model": "generalization",
            "row_deletion": False,
            "cardinality": (10, 40),
            "levels": (3, 5),
            "zipf": 0.0,
        },
        _random,
    ),
    Family(
        "kanon-planted",
        "k-anonymity",
        "records around n_groups random prototypes, each cell redrawn w.p. noise; meta "
        "upper_bound = cost of the planted partition when its groups have >= k records; "
        "levels > 0 adds random hierarchies of that height",
        {
            "n": 60,
            "m": 8,
            "n_groups": 10,
            "noise": 0.1,
            "cardinality": 10,
            "levels": 0,
            **_COMMON,
        },
        _planted,
    ),
    Family(
        "kanon-triangles",
        "k-anonymity",
        "edge-partition-into-triangles gadget (2005 §3) of a random union of n_triangles "
        "edge-disjoint triangles, k = 3: optimum 9mt with m = n_triangles, t = ceil(log2(3m+1))",
        {"n_triangles": 3, "n_vertices": 7, "preliminary": False},
        _triangles,
    ),
    Family(
        "kanon-gap-pair",
        "k-anonymity",
        "one member ('first' or 'second') of the graph-representation pair (2005 §4): same "
        "k-clique graph, optima k^2 2^(k-2) and k(2^k - 2)",
        {"k": 4, "member": "first"},
        _gap_pair,
    ),
    Family(
        "kanon-adult",
        "k-anonymity",
        "UCI Adult (from $ANONRATIO_DATASETS/adult) with ARX hierarchies; n > 0 samples n "
        "records without replacement, qi is a comma-separated subset of the 8 QIs",
        {
            "n": 0,
            "k": 5,
            "model": "generalization",
            "row_deletion": False,
            "qi": ADULT_QI,
        },
        _adult,
    ),
):
    register_family(_fam)
del _fam


# ---------------------------------------------------------------------------------------------
# Min-Max Bin Covering families (Du, Eppstein, Goodrich and Lueker 2009, §4-§5)
# ---------------------------------------------------------------------------------------------
def _bc_uniform(rng, *, n, k, low, high):
    return uniform_instance(n, k=k, low=low, high=high or None, seed=rng), {}


def _bc_zipf(rng, *, n, k, exponent, max_size):
    return zipf_instance(n, k=k, exponent=exponent, max_size=max_size or None, seed=rng), {}


def _bc_3partition_yes(rng, *, m, B):
    instance, meta = planted_three_partition(m, B=B, seed=rng)
    extra = {"optimum": float(meta["optimum"]), "B": meta["B"], "m": meta["m"]}
    extra["planted"] = meta["planted"]
    return instance, extra


def _bc_3partition_no(rng, *, m, B):
    instance, meta = three_partition_no_instance(m, B=B, seed=rng)
    bound = float(meta["optimum_lower_bound"])
    return instance, {"lower_bound": bound, "B": meta["B"], "m": meta["m"]}


def _bc_census(rng, *, dataset, k, min_frequency):
    if dataset not in CENSUS_FILES:
        raise ValueError(
            f"parameter `dataset` must be one of {sorted(CENSUS_FILES)}, got {dataset!r}"
        )
    instance = census_instance(dataset, k=k, min_frequency=min_frequency)
    extra = {"dataset": dataset, "total": instance.total, "max_size": instance.max_size}
    return instance, extra


for _fam in (
    Family(
        "bc-uniform",
        "bin-covering",
        "n item sizes uniform in [low, high] (high = 0: k), Min-Max Bin Covering (Du et al. "
        "2009, §4)",
        {"n": 20, "k": 50, "low": 1, "high": 0},
        _bc_uniform,
    ),
    Family(
        "bc-zipf",
        "bin-covering",
        "n Zipf-distributed item sizes P(x) ~ x^-exponent truncated to [1, max_size] "
        "(max_size = 0: max(k, 1000)), like name frequencies",
        {"n": 20, "k": 50, "exponent": 1.5, "max_size": 0},
        _bc_zipf,
    ),
    Family(
        "bc-3partition-yes",
        "bin-covering",
        "planted 3-Partition yes-instance (Du et al. 2009, Theorem 5): 3m sizes in (B/4, B/2) "
        "forming m triples of sum B, k = B; meta optimum = B",
        {"m": 4, "B": 100},
        _bc_3partition_yes,
    ),
    Family(
        "bc-3partition-no",
        "bin-covering",
        "3-Partition no-instance (Theorem 5): 3m even sizes in (B/4, B/2) summing to mB, B odd, "
        "m even, k = B; meta lower_bound = ceil(mB / (m - 1)) > B",
        {"m": 4, "B": 101},
        _bc_3partition_no,
    ),
    Family(
        "bc-census",
        "bin-covering",
        "1990 U.S. Census name frequencies (Du et al. 2009, §5): dataset FEMALE-1990, MALE-1990 "
        "or LAST-1990, names with frequency >= min_frequency %, item size = frequency x 1000 "
        "(from the `names` package); deterministic (the seed is unused)",
        {"dataset": "LAST-1990", "k": 5000, "min_frequency": 0.001},
        _bc_census,
    ),
):
    register_family(_fam)
del _fam


# ---------------------------------------------------------------------------------------------
# zip codes, GPS rectangles, ordered labels (Du et al. 2009, §2-§4): registered by their module
# ---------------------------------------------------------------------------------------------
from . import families_paper004  # noqa: E402, F401  (registers its families in FAMILIES)
