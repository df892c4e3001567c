# args: l
async def f(n):
    return n
