"""specscope.engine"""
