"""PySCIPOpt (kanon-bpc's solver) runs in one process beside OR-Tools' CP-SAT and highspy.

OR-Tools bundles its own HiGHS (and SCIP): a library that loads a clashing copy of a shared
library fails at import or at its first solve, whichever package loads second. Each import order
runs in a fresh interpreter, since a process imports a package once.
"""

import subprocess
import sys

import pytest

_SOLVE_ALL = """
import importlib
for name in {order!r}:
    importlib.import_module(name)
from ortools.sat.python import cp_model
import highspy
import pyscipopt

cp = cp_model.CpModel()
x = cp.new_int_var(0, 5, "x")
cp.add(2 * x >= 3)
cp.minimize(x)
solver = cp_model.CpSolver()
assert solver.solve(cp) == cp_model.OPTIMAL

h = highspy.Highs()
h.setOptionValue("output_flag", False)
h.addVar(0, 10)
h.changeColCost(0, 1.0)
h.addRow(2.5, highspy.kHighsInf, 1, [0], [1.0])
h.run()

scip = pyscipopt.Model()
scip.hideOutput()
y = scip.addVar(vtype="I", ub=5)
scip.addCons(2 * y >= 3)
scip.setObjective(y)
scip.optimize()
assert scip.getStatus() == "optimal"
print(solver.value(x), h.getInfo().objective_function_value, scip.getObjVal())
"""

#: the order a sweep meets them in (CP-SAT's models first) in the default tier; the two other
#: rotations, three seconds of fresh interpreter each, in the slow tier
ORDERS = [
    ("ortools.sat.python.cp_model", "highspy", "pyscipopt"),
    pytest.param(("pyscipopt", "ortools.sat.python.cp_model", "highspy"), marks=pytest.mark.slow),
    pytest.param(("highspy", "pyscipopt", "ortools.sat.python.cp_model"), marks=pytest.mark.slow),
]


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: "-".join(m.split(".")[0] for m in o))
def test_cpsat_highs_and_scip_solve_in_one_process(order):
    done = subprocess.run(
        [sys.executable, "-c", _SOLVE_ALL.format(order=order)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    # CP-SAT and SCIP round 1.5 up to the integer 2; the LP keeps 2.5
    assert done.stdout.split() == ["2", "2.5", "2.0"]
