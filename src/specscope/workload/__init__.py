"""specscope.workload"""
