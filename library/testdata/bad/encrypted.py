# Writes encrypted.pdf: a one-page PDF encrypted with the PDF 1.4 standard
# security handler (RC4, 40 bits), user password "secret", so poppler
# refuses it without the password. Python standard library only.
import hashlib
PAD=bytes.fromhex('28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A')
def rc4(key,data):
    S=list(range(256));j=0
    for i in range(256):
        j=(j+S[i]+key[i%len(key)])%256;S[i],S[j]=S[j],S[i]
    i=j=0;out=bytearray()
    for c in data:
        i=(i+1)%256;j=(j+S[i])%256;S[i],S[j]=S[j],S[i];out.append(c^S[(S[i]+S[j])%256])
    return bytes(out)
def pad(pw): return (pw+PAD)[:32]
user=b'secret';owner=b'ownerpw';P=-44;ID=bytes.fromhex('0123456789abcdef0123456789abcdef')
O=rc4(hashlib.md5(pad(owner)).digest()[:5],pad(user))
key=hashlib.md5(pad(user)+O+P.to_bytes(4,'little',signed=True)+ID).digest()[:5]
U=rc4(key,PAD)
def objkey(n): return hashlib.md5(key+n.to_bytes(3,'little')+(0).to_bytes(2,'little')).digest()[:10]
content=b'BT /F1 18 Tf 72 720 Td (Confidential quarterly figures) Tj ET'
enc=rc4(objkey(4),content)
objs={
1:b'<< /Type /Catalog /Pages 2 0 R >>',
2:b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
3:b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
4:b'<< /Length %d >>\nstream\n'%len(enc)+enc+b'\nendstream',
5:b'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
6:b'<< /Filter /Standard /V 1 /R 2 /O <'+O.hex().encode()+b'> /U <'+U.hex().encode()+b'> /P -44 >>',
}
out=bytearray(b'%PDF-1.4\n%\xe2\xe3\xcf\xd3\n');offs={}
for n in sorted(objs):
    offs[n]=len(out);out+=b'%d 0 obj\n'%n+objs[n]+b'\nendobj\n'
x=len(out)
out+=b'xref\n0 7\n0000000000 65535 f \n'+b''.join(b'%010d 00000 n \n'%offs[n] for n in sorted(objs))
out+=b'trailer\n<< /Size 7 /Root 1 0 R /Encrypt 6 0 R /ID [<'+ID.hex().encode()+b'> <'+ID.hex().encode()+b'>] >>\nstartxref\n%d\n%%%%EOF\n'%x
open('encrypted.pdf','wb').write(out)
