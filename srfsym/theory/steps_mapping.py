"""The T-step map behind a :class:`~srfsym.theory.problem.Problem` with ``steps > 1``
(docs/theory.md (p.2)), in the places of the one-step mapping: a module of its own, below the
engine, so that the problem value can build it without importing the solvers."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["StepsMapping", "steps_mapping", "with_map"]


@dataclass(frozen=True)
class StepsMapping:
    """The T-step map behind a :class:`~srfsym.theory.problem.Problem` with ``steps > 1``:
    the map (:class:`~srfsym.step.several_steps.SeveralStepsMap`), the student and target
    objects, and summary numbers in the places of the one-step ``r, c, gamma``:
    ``r = sqrt(sum_j pi_j |m_j|^2)`` (the spikes' size), ``c = sum_j pi_j c_j`` and
    ``gamma`` the fraction of the spikes' size inside the target span (each letter's spike
    vector, target components and bulk variance are in ``map.states[-1]``).

    >>> from srfsym.theory.problem import Problem
    >>> m = Problem("tanh", "sin", 0.1, 1.0, alpha0=2, eta=1, steps=2).mapping()
    >>> m.steps, round(m.c, 6) == round(float(m.map.states[2].bulk_variances[0]), 6)
    (2, True)
    """

    map: object
    student: object
    teacher: object
    steps: int

    @property
    def state(self):
        return self.map.states[-1]

    @property
    def r(self) -> float:
        pi = np.asarray(self.state.weights, float)
        return float(np.sqrt(pi @ self.state.spike_norms ** 2))

    spike_strength = r

    @property
    def c(self) -> float:
        return float(np.asarray(self.state.weights, float) @ self.state.bulk_variances)

    bulk_variance = c

    @property
    def gamma(self) -> float:
        pi = np.asarray(self.state.weights, float)
        inside = float(np.sqrt(pi @ np.sum(self.state.target_components ** 2, axis=1)))
        return inside / self.r if self.r > 0 else 0.0

    alignment = gamma

    @property
    def notes(self) -> tuple:
        return (f"{self.steps} giant steps: the T-step map of docs/theory.md (p.2) "
                f"({self.map.method}; node error {self.map.node_error:.1e}), the readout on the "
                "vector-kappa channel with the isotropic bulk per letter (p.4)",) \
            + tuple(self.map.notes)

    def to_dict(self, dps: int = 30) -> dict:
        st = self.state
        return {"student": self.student.name, "teacher": self.teacher.name,
                "eta": self.map.eta, "alpha0": self.map.alpha0, "steps": self.steps,
                "spike_strength": self.r, "bulk_variance": self.c, "alignment": self.gamma,
                "letters": list(st.letters), "spike_norms": st.spike_norms.tolist(),
                "target_components": st.target_components.tolist(),
                "bulk_variances": st.bulk_variances.tolist(),
                "node_error": self.map.node_error, "notes": list(self.notes)}

    def __str__(self):
        return str(self.map)


def steps_mapping(problem) -> StepsMapping:
    """The T-step map of a problem with ``steps > 1`` (its step ``alpha0, eta``, its
    vocabulary)."""
    from ..step.several_steps import several_steps
    from ..step.step_target import step_target
    from ..symbolic.activations import activation
    m = several_steps(problem.student, problem.teacher, problem.eta, problem.alpha0,
                      problem.steps, problem.vocabulary)
    return StepsMapping(m, activation(problem.student), step_target(problem.teacher),
                        int(problem.steps))


def with_map(res, problem, mapping: StepsMapping):
    """``res`` (a solver's result after ``steps > 1``) with the map's per-letter data: its
    vocabulary, ``groups`` (spike norms, target components, bulk variances) and ``steps``."""
    st = mapping.state
    if problem.vocabulary is not None:
        res.vocabulary = problem.vocabulary
    res.groups = {"spike_norm": st.spike_norms.tolist(),
                  "target_components": st.target_components.tolist(),
                  "bulk_variance": st.bulk_variances.tolist()}
    res.steps = mapping.steps
    return res
