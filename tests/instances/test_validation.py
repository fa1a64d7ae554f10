"""The shared validation vocabulary: every check, its canonical values and its messages."""

import math
import re
from fractions import Fraction

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from anonratio.instances.bin_covering.generators import uniform_instance
from anonratio.instances.gps_rectangles.generators import uniform_points
from anonratio.instances.kanonymity.gadgets import triangle_union_graph
from anonratio.instances.kanonymity.generators import binary_table
from anonratio.instances.ordered_labels.generators import ordered_random_sizes
from anonratio.instances.table import Table
from anonratio.instances.validation import (
    check_choice,
    check_instance,
    check_int,
    check_number,
    check_probability,
    check_random_state,
    check_seed,
    check_time_limit,
    dispatch,
)
from anonratio.instances.zip_codes.generators import grid_instance


# -- check_int ----------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [3, np.int8(3), np.int64(3), np.uint16(3)])
def test_check_int_accepts_python_and_numpy_integers(value):
    out = check_int("n", value, low=1, high=5)
    assert out == 3 and type(out) is int


@pytest.mark.parametrize(
    ("kwargs", "value", "message"),
    [
        ({}, 2.0, r"^`n` must be an integer, got 2\.0$"),
        ({"low": 1}, 0, r"^`n` must be an integer >= 1, got 0$"),
        ({"high": 9}, 10, r"^`n` must be an integer <= 9, got 10$"),
        ({"low": 2, "high": 12}, 1, r"^`n` must be an integer in \[2, 12\], got 1$"),
        ({"low": 2, "high": 12}, 13, r"^`n` must be an integer in \[2, 12\], got 13$"),
        ({"low": 1}, "3", r"^`n` must be an integer >= 1, got '3'$"),
        ({"low": 1}, None, r"^`n` must be an integer >= 1, got None$"),
        ({"low": 1}, 1.5, r"^`n` must be an integer >= 1, got 1\.5$"),
        ({"low": 1}, np.float64(2.0), r"^`n` must be an integer >= 1, got np\.float64\(2\.0\)$"),
    ],
)
def test_check_int_messages(kwargs, value, message):
    with pytest.raises(ValueError, match=message):
        check_int("n", value, **kwargs)


@pytest.mark.parametrize("value", [True, False, np.True_, np.bool_(False)])
def test_check_int_refuses_booleans(value):
    with pytest.raises(ValueError, match=r"^`flag` must be an integer, got "):
        check_int("flag", value)


def test_check_int_bounds_are_inclusive():
    assert check_int("k", 2, low=2, high=2) == 2
    assert check_int("k", -5, high=-5) == -5


def test_check_int_named_bounds():
    assert check_int("k", 20, low=2, high=20, high_name="n_records") == 20
    message = r"^`k` must be an integer in \[2, n_records=20\], got 21$"
    with pytest.raises(ValueError, match=message):
        check_int("k", 21, low=2, high=20, high_name="n_records")
    with pytest.raises(ValueError, match=r"^`high` must be an integer >= low=5, got 3$"):
        check_int("high", 3, low=5, low_name="low")
    with pytest.raises(ValueError, match=r"^`x` must be an integer in \[lo=1, hi=3\], got 0$"):
        check_int("x", 0, low=1, high=3, low_name="lo", high_name="hi")


def test_check_int_allow_none():
    assert check_int("seed", None, low=0, allow_none=True) is None
    assert check_int("seed", np.int32(4), low=0, allow_none=True) == 4
    with pytest.raises(ValueError, match=r"^`seed` must be an integer >= 0 or None, got -1$"):
        check_int("seed", -1, low=0, allow_none=True)
    with pytest.raises(ValueError, match=r"^`seed` must be an integer or None, got True$"):
        check_int("seed", True, allow_none=True)


# -- check_number -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value", [0.5, 1, np.float32(0.5), np.float64(0.5), np.int64(1), Fraction(1, 2)]
)
def test_check_number_accepts_reals_as_float(value):
    out = check_number("x", value, low=0, high=1)
    assert out == float(value) and type(out) is float


@pytest.mark.parametrize(
    ("kwargs", "value", "message"),
    [
        ({}, math.inf, r"^`x` must be a finite number, got inf$"),
        ({"finite": False}, "1", r"^`x` must be a number, got '1'$"),
        ({"low": 0}, -0.5, r"^`x` must be a finite number >= 0, got -0\.5$"),
        ({"low": 0, "closed": "neither"}, 0, r"^`x` must be a positive finite number, got 0$"),
        (
            {"low": 0, "closed": "neither", "finite": False},
            -1,
            r"^`x` must be a positive number, got -1$",
        ),
        ({"low": 1, "closed": "neither", "finite": False}, 1, r"^`x` must be a number > 1, got 1$"),
        ({"high": 2}, 3, r"^`x` must be a finite number <= 2, got 3$"),
        ({"high": 2, "closed": "left"}, 2, r"^`x` must be a finite number < 2, got 2$"),
        ({"low": 0, "high": 1}, 1.5, r"^`x` must be a number in \[0, 1\], got 1\.5$"),
        ({"low": 0, "high": 1, "closed": "left"}, 1, r"^`x` must be a number in \[0, 1\), got 1$"),
        ({"low": 0, "high": 1, "closed": "right"}, 0, r"^`x` must be a number in \(0, 1\], got 0$"),
        (
            {"low": 0, "high": 0.5, "closed": "neither"},
            0.5,
            r"^`x` must be a number in \(0, 0\.5\), got 0\.5$",
        ),
    ],
)
def test_check_number_messages(kwargs, value, message):
    with pytest.raises(ValueError, match=message):
        check_number("x", value, **kwargs)


def test_check_number_closed_ends():
    assert check_number("x", 0, low=0, high=1, closed="left") == 0.0
    assert check_number("x", 1, low=0, high=1, closed="right") == 1.0
    assert check_number("x", math.inf, low=0, finite=False) == math.inf


@pytest.mark.parametrize(
    ("value", "shown"), [(math.nan, "nan"), (np.float64("nan"), r"np\.float64\(nan\)")]
)
def test_check_number_refuses_nan_even_when_not_finite(value, shown):
    with pytest.raises(ValueError, match=rf"^`x` must be a number, got {shown}$"):
        check_number("x", value, finite=False)


@pytest.mark.parametrize("value", [True, np.True_])
def test_check_number_refuses_booleans(value):
    with pytest.raises(ValueError, match=r"^`x` must be a finite number, got "):
        check_number("x", value)


def test_check_number_allow_none():
    assert check_number("zipf", None, low=0, allow_none=True) is None
    with pytest.raises(ValueError, match=r"^`zipf` must be a finite number >= 0 or None, got -1"):
        check_number("zipf", -1, low=0, allow_none=True)


# -- check_probability --------------------------------------------------------------------------
@pytest.mark.parametrize("value", [0, 1, 0.25, np.float32(0.5)])
def test_check_probability_accepts(value):
    assert check_probability("noise", value) == float(value)


@pytest.mark.parametrize("value", [-0.1, 1.5, math.nan, True, "0.5", None])
def test_check_probability_refuses(value):
    shown = re.escape(repr(value))
    message = rf"^`noise` must be a probability in \[0, 1\], got {shown}$"
    with pytest.raises(ValueError, match=message):
        check_probability("noise", value)


# -- check_choice -------------------------------------------------------------------------------
def test_check_choice_returns_the_value():
    assert check_choice("order", "sorted", ("random", "sorted")) == "sorted"
    assert check_choice("order", "input", {"input", "random"}) == "input"
    assert check_choice("method", "fast", {"fast": 1, "slow": 2}) == "fast"


@pytest.mark.parametrize(
    ("choices", "value", "message"),
    [
        (("suppression", "generalization"), "stars", r"\['generalization', 'suppression'\]"),
        ({"b": 1, "a": 2}, "c", r"\['a', 'b'\]"),
        ({"x", "y"}, ["x"], r"\['x', 'y'\]"),  # an unhashable value is simply unknown
        ((2, 1), 3, r"\[1, 2\]"),
    ],
)
def test_check_choice_messages(choices, value, message):
    shown = re.escape(repr(value))
    with pytest.raises(ValueError, match=rf"^`model` must be one of {message}, got {shown}$"):
        check_choice("model", value, choices)


# -- check_instance -----------------------------------------------------------------------------
def test_check_instance():
    table = Table(np.zeros((2, 1), dtype=int), ("a",), (("x",),))
    assert check_instance(table, Table, "table") is table
    with pytest.raises(TypeError, match=r"^`table` must be a Table, got list$"):
        check_instance([], Table, "table")
    with pytest.raises(TypeError, match=r"^`instance` must be a dict, got int$"):
        check_instance(3, dict)


def test_check_instance_names_the_package_of_a_foreign_class():
    with pytest.raises(TypeError, match=r"^`graph` must be a networkx\.Graph, got dict$"):
        check_instance({}, nx.Graph, "graph")
    with pytest.raises(TypeError, match=r"^`df` must be a pandas\.DataFrame, got list$"):
        check_instance([], pd.DataFrame, "df")


# -- check_random_state / check_seed -----------------------------------------------------------
def test_check_random_state():
    rng = np.random.default_rng(1)
    assert check_random_state(rng) is rng  # a Generator is used as is, not reseeded
    assert isinstance(check_random_state(None), np.random.Generator)
    a = check_random_state(7).integers(1000, size=5)
    b = check_random_state(np.int64(7)).integers(1000, size=5)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, np.random.default_rng(7).integers(1000, size=5))


@pytest.mark.parametrize("seed", [-1, 1.0, "3", True, np.bool_(True), np.random.SeedSequence(1)])
def test_check_random_state_refuses(seed):
    message = r"^`rs` must be None, a non-negative integer or a numpy Generator, got "
    with pytest.raises(ValueError, match=message):
        check_random_state(seed, name="rs")


def test_check_seed():
    assert check_seed(7) == 7 and type(check_seed(np.int16(7))) is int
    assert check_seed(None) is None
    assert check_seed(np.random.default_rng(0)) is None  # a Generator has no seed to record
    with pytest.raises(ValueError, match=r"^`seed` must be None, a non-negative integer or a "):
        check_seed(-3)
    with pytest.raises(ValueError, match=r"got False$"):
        check_seed(False)


# -- check_time_limit ---------------------------------------------------------------------------
def test_check_time_limit():
    assert check_time_limit(30) == 30.0 and type(check_time_limit(np.int32(2))) is float
    assert check_time_limit(None, allow_none=True) is None
    assert check_time_limit(math.inf, allow_none=True) is None


@pytest.mark.parametrize("value", [0, -1.0, math.nan, math.inf, True, "10", None])
def test_check_time_limit_refuses(value):
    shown = re.escape(repr(value))
    message = rf"^`time_limit` must be a positive finite number of seconds, got {shown}$"
    with pytest.raises(ValueError, match=message):
        check_time_limit(value)


def test_check_time_limit_message_with_none_allowed():
    with pytest.raises(
        ValueError,
        match=r"^`limit` must be a positive finite number of seconds or None, got 0$",
    ):
        check_time_limit(0, allow_none=True, name="limit")


# -- dispatch -----------------------------------------------------------------------------------
def test_dispatch():
    methods = {"double": lambda x, *, by=2: x * by, "negate": lambda x: -x}
    assert dispatch(methods, "double", 3) == 6
    assert dispatch(methods, "double", 3, by=3) == 9
    assert dispatch(methods, "negate", 3) == -3
    message = r"^`method` must be one of \['double', 'negate'\], got 'x'$"
    with pytest.raises(ValueError, match=message):
        dispatch(methods, "x", 3)


def test_dispatch_takes_the_function_itself():
    # networkx style: the algorithm itself, known to the table or not
    assert dispatch({}, lambda x, *, by=2: x * by, 3, by=4) == 12


# -- the generators validate their seeds with check_random_state --------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda seed: binary_table(4, 2, seed=seed),
        lambda seed: triangle_union_graph(2, 5, seed=seed),
        lambda seed: uniform_instance(4, k=3, seed=seed),
        lambda seed: grid_instance(2, 2, 1, seed=seed),
        lambda seed: uniform_points(4, k=1, seed=seed),
        lambda seed: ordered_random_sizes(4, seed=seed),
    ],
)
def test_generators_check_their_seed(make):
    rng = np.random.default_rng(3)
    make(rng)  # a Generator is used as is
    message = r"^`seed` must be None, a non-negative integer or a numpy Generator, got -1$"
    with pytest.raises(ValueError, match=message):
        make(-1)
