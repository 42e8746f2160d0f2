const require=id=>process.getBuiltinModule(id);
import{c as o}from"./chunk-DMEBDBZG.js";var s=o((t,e)=>{e.exports=process.getBuiltinModule("node:os")});export{s as a};
