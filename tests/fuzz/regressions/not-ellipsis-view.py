# args: ad1C
def ell(a): not a[..., 0]
