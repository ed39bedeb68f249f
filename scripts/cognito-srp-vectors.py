# Prints the known values of Tests/LocalUserPoolTests/KnownValues.swift: SRP-6a computed by
# pycognito (a real Cognito SRP client) and big-integer results from Python's pow() and divmod.
# Run: python3 -m pip install pycognito && python3 scripts/cognito-srp-vectors.py
import base64, hashlib, hmac
from pycognito import aws_srp as s
N=s.hex_to_long(s.N_HEX); g=2
k=s.hex_to_long(s.hex_hash("00"+s.N_HEX+"0"+s.G_HEX))
print("k", format(k,'x'))
pool="us-east-1_InkraLocal"; user="6f1c2a9e-3b7d-4c1e-9a55-0d2e8f4b7c31"; pw="Correct-Horse-9battery"
salt_hex="9e1f0c3b5a7d2e4f6a8b0c1d2e3f4a5b"   # high bit set: exercises PAD
a=int("1a2b3c4d"*16,16); b=int("5e6f7a8b"*8,16)
A=pow(g,a,N)
# server side
up=f"{pool.split('_')[1]}{user}:{pw}"
x=s.hex_to_long(s.hex_hash(s.pad_hex(salt_hex)+s.hash_sha256(up.encode())))
v=pow(g,x,N)
B=(k*v+pow(g,b,N))%N
# client side via pycognito
c=s.AWSSRP.__new__(s.AWSSRP)
c.pool_id=pool; c.big_n=N; c.val_g=g; c.val_k=k; c.small_a_value=a; c.large_a_value=A
key=c.get_password_authentication_key(user,pw,B,salt_hex)
block=bytes(range(64))
ts="Wed Nov 5 07:03:09 UTC 2025"
msg=pool.split('_')[1].encode()+user.encode()+block+ts.encode()
sig=base64.standard_b64encode(hmac.new(key,msg,hashlib.sha256).digest()).decode()
print("x",format(x,'x')); print("v",format(v,'x')); print("A",format(A,'x')); print("B",format(B,'x'))
print("key",key.hex()); print("sig",sig)
# bigint vectors
import random
random.seed(7)
for i in range(3):
    p=random.getrandbits(700+i*300)|1; e=random.getrandbits(200+i*50); m=random.getrandbits(1000+i*700)|1
    print("pow",format(p,'x'),format(e,'x'),format(m,'x'),format(pow(p,e,m),'x'))
for i in range(3):
    p=random.getrandbits(900+i*100); q=random.getrandbits(300+i*200)|1
    print("divmod",format(p,'x'),format(q,'x'),format(p//q,'x'),format(p%q,'x'), format(p*q,'x'))
