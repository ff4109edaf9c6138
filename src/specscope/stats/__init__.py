"""specscope.stats"""
