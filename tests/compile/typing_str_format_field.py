# args: l
def f(n):
    return "{0} is {0.real}".format(n)
