def fmt(x, y):
    if x < 0:
        raise ValueError(f"x must be >= 0, got {x}")
    if y == 0:
        raise ZeroDivisionError(f'y={y!r} ' f"{x + y:>{10}}" "tail")
    assert x != y, f"""{x} == {y}
    on two lines"""
    return x / y
