"""Parse errors name the expression they are in: a target's say "target expression", an
activation's "activation expression", a loss's "loss expression" (one safe parser for all)."""
import pytest
from cli_run import run_cli

from srfsym.symbolic.expressions import ActivationError
from srfsym.symbolic.targets import multi_index_target


@pytest.mark.parametrize("args,message", [
    (("target", "z1/0"), "division by zero in the target expression"),
    (("error", "--student", "tanh", "--teacher", "z1 + w", "--alpha0", "4", "--eta", "2",
      "--lam", "0.1", "--alpha", "1"), "unknown name 'w' in the target expression"),
    (("error", "--student", "x/0", "--teacher", "z1", "--alpha0", "4", "--eta", "2",
      "--lam", "0.1", "--alpha", "1"), "division by zero in the activation expression"),
    # a typo names every variable a target may use (it said "the variables are 'z1'")
    (("target", "z1 + z1*zz2"),
     "unknown name 'zz2' in the target expression: the variables are 'z1', 'z2', 'z3', 'z4'"),
])
def test_cli_parse_errors_name_the_expression(args, message):
    out = run_cli(*args)
    assert out.returncode != 0 and message in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("text,message", [
    ("z1 + z2[0]", "syntax element Subscript is not allowed in the target expression"),
    ("tanh(z1, beta=2)", "keyword arguments are not allowed in target expressions"),
    ("tanh(" * 120 + "z1" + ")" * 120, "target expression nested more than"),
])
def test_target_parse_errors_say_target(text, message):
    with pytest.raises(ActivationError, match=message.replace("(", r"\(").replace("[", r"\[")):
        multi_index_target(text)


def test_a_loss_parse_error_names_the_loss():
    from srfsym.theory.channels.losses import loss
    with pytest.raises(ValueError, match="division by zero in the loss expression"):
        loss("(y - yhat)**2/0")
